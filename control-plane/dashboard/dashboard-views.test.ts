import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AggregatedStatusItem, Cluster, ResourceBinding } from "../../shared/api/types.ts";
import { clusterWorkloads, entryState, overview, templateRows, templateState } from "./fleet-views.ts";
import { features, topology } from "./template-views.ts";

const cluster = (name: string, ready: "True" | "False", extra: Partial<Cluster["spec"]> = {}): Cluster => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "Cluster",
  metadata: { name },
  spec: { region: "eu", zone: `${name}-a`, ...extra },
  status: { conditions: [{ type: "Ready", status: ready, reason: ready === "True" ? "ClusterReady" : "ClusterNotReachable", message: "m", lastTransitionTime: "2026-11-24T00:00:00Z" }], agentVersion: "0.1.0", lastHeartbeatTime: "2026-11-24T10:00:00Z", nodeSummary: { totalNum: 1, readyNum: 1 }, resourceSummary: { allocatable: { cpu: "4" }, allocated: { cpu: "1" } } },
});

const binding = (name: string, targets: { name: string; replicas?: number }[], items: AggregatedStatusItem[], scheduled: "True" | "False" = "True"): ResourceBinding => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceBinding",
  metadata: { name: `${name}-deployment`, namespace: "default", labels: { "flotilla.dev/policy-name": "web-pp", "flotilla.dev/policy-namespace": "default" } },
  spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name }, clusters: targets },
  status: { conditions: [{ type: "Scheduled", status: scheduled, reason: scheduled === "True" ? "Scheduled" : "NoClusterFit", message: "", lastTransitionTime: "" }], aggregatedStatus: items },
});

const healthy = (c: string) => ({ clusterName: c, applied: true, health: "Healthy" as const, observedHash: "abcdef0123456789" });

describe("entryState", () => {
  const cases: [string, Parameters<typeof entryState>[0], boolean, string][] = [
    ["a NotReady cluster", healthy("m1"), false, "NotReady"],
    ["no entry yet", undefined, true, "Pending"],
    ["a status word wins", { clusterName: "m1", applied: false, reason: "AlreadyExists" }, true, "AlreadyExists"],
    ["not applied without a word", { clusterName: "m1", applied: false }, true, "Pending"],
    ["applied: its health", { clusterName: "m1", applied: true, health: "Progressing" }, true, "Progressing"],
  ];
  for (const [name, item, ready, want] of cases) it(name, () => assert.equal(entryState(item, ready), want));
});

describe("templateState", () => {
  const ready = () => true;
  const cases: [string, ResourceBinding, (n: string) => boolean, string][] = [
    ["all healthy", binding("a", [{ name: "m1" }, { name: "m2" }], [healthy("m1"), healthy("m2")]), ready, "Healthy"],
    ["not scheduled", binding("a", [], [], "False"), ready, "Unscheduled"],
    ["one cluster still to report", binding("a", [{ name: "m1" }, { name: "m2" }], [healthy("m1")]), ready, "Progressing"],
    ["a failed apply", binding("a", [{ name: "m1" }, { name: "m2" }], [healthy("m1"), { clusterName: "m2", applied: false, reason: "AlreadyExists" }]), ready, "Failed"],
    ["an unhealthy member object", binding("a", [{ name: "m1" }], [{ clusterName: "m1", applied: true, health: "Unhealthy" }]), ready, "Unhealthy"],
    ["a NotReady cluster makes it Unhealthy, not Failed", binding("a", [{ name: "m1" }, { name: "m2" }], [healthy("m1"), healthy("m2")]), (n) => n === "m1", "Unhealthy"],
  ];
  for (const [name, b, r, want] of cases) it(name, () => assert.equal(templateState(b, r), want));
});

describe("overview and clusters", () => {
  const clusters = [cluster("member2", "False"), cluster("member1", "True", { taints: [{ key: "gpu", value: "yes", effect: "NoSchedule" }] })];
  const bindings = [binding("web", [{ name: "member1", replicas: 2 }], [healthy("member1")]), binding("api", [{ name: "member1" }, { name: "member2" }], [healthy("member1"), healthy("member2")])];
  it("lists clusters by name with their facts, counts templates by state, keeps the latest warnings", () => {
    const events = [
      { metadata: { namespace: "default" }, type: "Warning", reason: "ApplyFailed", message: "old", lastTimestamp: "2026-11-24T09:00:00Z", involvedObject: { kind: "Deployment", namespace: "default", name: "web" } },
      { metadata: { namespace: "default" }, type: "Normal", reason: "Scheduled", message: "fine", lastTimestamp: "2026-11-24T11:00:00Z" },
      { metadata: { namespace: "default" }, type: "Warning", reason: "ClusterNotReady", message: "new", lastTimestamp: "2026-11-24T10:00:00Z", count: 3 },
    ];
    const o = overview({ clusters, bindings, events });
    assert.deepEqual(o.clusters.map((c) => [c.name, c.ready, c.zone]), [["member1", "True", "member1-a"], ["member2", "False", "member2-a"]]);
    assert.deepEqual(o.clusters[0]?.taints, ["gpu=yes:NoSchedule"]);
    assert.deepEqual(o.clusters[0]?.capacity.cpu, { allocatable: "4", allocated: "1" });
    assert.equal(o.templates.total, 2);
    assert.equal(o.templates.byState.Healthy, 1);
    assert.equal(o.templates.byState.Unhealthy, 1);
    assert.deepEqual(o.warnings.map((w) => [w.reason, w.count]), [["ClusterNotReady", 3], ["ApplyFailed", 1]]);
    assert.equal(o.warnings[1]?.object, "Deployment default/web");
  });
  it("templates name their policy; clusters list what runs there", () => {
    const rows = templateRows(bindings, clusters);
    assert.deepEqual(rows.map((r) => [r.name, r.policy, r.clusters.map((c) => `${c.name}=${c.state}`).join(",")]), [["api", "PropagationPolicy default/web-pp", "member1=Healthy,member2=NotReady"], ["web", "PropagationPolicy default/web-pp", "member1=Healthy"]]);
    const per = clusterWorkloads({ clusters, bindings });
    assert.deepEqual(per.map((c) => [c.cluster.name, c.objects.map((o) => `${o.name}:${o.state}:${o.replicas ?? "-"}`)]), [["member1", ["api:Healthy:-", "web:Healthy:2"]], ["member2", ["api:NotReady:-"]]]);
  });
});

describe("topology and features", () => {
  it("has a box per cluster, removals included, with the Work's hash and the rollout's revision", () => {
    const b = binding("web", [{ name: "m1", replicas: 3 }], [healthy("m1"), { clusterName: "m9", applied: true, health: "Healthy", reason: "WaitingForRemoval" }]);
    b.status = { ...b.status, rollout: { revision: "rev2222222222222", stableRevision: "rev1", phase: "Progressing", clusters: [{ name: "m1", revision: "rev2222222222222", phase: "Soaking", since: "" }] } };
    const t = topology({ binding: b, clusters: [cluster("m1", "True"), cluster("m9", "True")], workHash: (c) => (c === "m1" ? "abcdef0123456789ff" : undefined) });
    assert.equal(t.policy, "PropagationPolicy default/web-pp");
    assert.equal(t.binding.name, "default/web-deployment");
    assert.deepEqual(t.clusters.map((c) => [c.cluster, c.state, c.replicas, c.workHash, c.rolloutRevision]), [["m1", "Healthy", 3, "abcdef012345", "rev222222222"], ["m9", "WaitingForRemoval", undefined, "", ""]]);
    assert.deepEqual(t.clusters[0]?.member, { kind: "Deployment", namespace: "default", name: "web" });
    const f = features({ bindings: [b], dnsRecords: [{ apiVersion: "x", kind: "ServiceDNSRecord", metadata: { name: "web", namespace: "default" }, spec: { domainRef: "d" }, status: { dns: [{ cluster: "m1" }], conditions: [{ type: "Ready", status: "True", reason: "RecordsPublished", message: "", lastTransitionTime: "" }] } }] });
    assert.deepEqual(f.rollouts.map((r) => [r.name, r.phase, r.clusters.length]), [["web", "Progressing", 1]]);
    assert.deepEqual(f.dns.map((d) => [d.name, d.ready, d.clusters]), [["web", "True", ["m1"]]]);
    assert.deepEqual(f.heldDeletions, []);
  });
});
