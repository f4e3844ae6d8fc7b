import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster, ClusterSpec, KubeObject, Placement, PropagationPolicy, ResourceBinding } from "../../shared/api/types.ts";
import { type ExplainFacts, explainFacts as explain } from "./explanation.ts";
import { explanationText } from "./text.ts";

const NOW = Date.parse("2026-11-24T12:00:00Z");
const deployment: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "default", labels: { app: "web" } }, spec: { replicas: 3 } };
const ref = { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "web" };

function cluster(name: string, spec: ClusterSpec = {}, ready = true): Cluster {
  return { apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name }, spec, status: { conditions: [{ type: "Ready", status: ready ? "True" : "False", reason: ready ? "ClusterReady" : "ClusterNotReachable", message: ready ? "the agent's heartbeats arrive" : "no heartbeat for 40s", lastTransitionTime: "" }] } } as Cluster;
}
function policy(name: string, placement: Placement, selector: Record<string, unknown> = { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, extra: Record<string, unknown> = {}): PropagationPolicy {
  return { apiVersion: "policy.karmada.io/v1alpha1", kind: "PropagationPolicy", metadata: { name, namespace: "default" }, spec: { resourceSelectors: [selector], placement, ...extra } } as unknown as PropagationPolicy;
}
function binding(clusters: { name: string; replicas?: number }[], extra: Partial<ResourceBinding["status"]> = {}, policyName = "p"): ResourceBinding {
  return {
    apiVersion: "work.karmada.io/v1alpha2",
    kind: "ResourceBinding",
    metadata: { name: "web-deployment", namespace: "default", labels: { "propagationpolicy.karmada.io/name": policyName, "propagationpolicy.karmada.io/namespace": "default" } },
    spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "web" }, replicas: 3, clusters },
    status: { aggregatedStatus: [{ clusterName: "member1", applied: true, health: "Healthy", observedHash: "abc123def4567" }], ...extra },
  } as ResourceBinding;
}
const applied = { work: { hash: "abc123def4567" }, report: { observedHash: "abc123def4567", applied: true, available: true, reason: "", message: "", at: NOW - 12_000, manifests: [] } };

function facts(over: Partial<ExplainFacts>): ExplainFacts {
  return { ref, template: deployment, policies: [], binding: undefined, clusters: [], perCluster: {}, now: NOW, ...over };
}

describe("explain", () => {
  const cases: { name: string; facts: ExplainFacts; want: string[] }[] = [
    {
      name: "a cluster selected by clusterNames, given replicas, applied and healthy; another filtered by clusterNames",
      facts: facts({
        policies: [policy("p", { clusterAffinity: { clusterNames: ["member1"] }, replicaScheduling: { replicaSchedulingType: "Divided" } })],
        binding: binding([{ name: "member1", replicas: 3 }]),
        clusters: [cluster("member2"), cluster("member1")],
        perCluster: { member1: applied },
      }),
      want: [
        "PropagationPolicy default/p claims Deployment default/web (selected by name, priority 0).",
        "member1: selected by clusterAffinity.clusterNames [member1]; given 3 of 3 replicas; Work rendered (hash abc123def456), shipped, applied 12s ago; healthy.",
        "member2: filtered out: not in clusterAffinity.clusterNames [member1].",
      ],
    },
    {
      name: "an untolerated taint",
      facts: facts({ policies: [policy("p", {})], binding: binding([{ name: "member1" }]), clusters: [cluster("member1"), cluster("member3", { taints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }] })], perCluster: { member1: applied } }),
      want: ["member3: filtered out: taint dedicated=gpu:NoSchedule not tolerated by placement.clusterTolerations."],
    },
    {
      name: "a conflict: the last error with its time and meaning",
      facts: facts({
        policies: [policy("p", {})],
        binding: binding([{ name: "member1" }]),
        clusters: [cluster("member1")],
        perCluster: { member1: { work: { hash: "abc123def4567" }, report: { observedHash: "abc123def4567", applied: false, available: false, reason: "", message: "", at: NOW - 5_000, manifests: [{ object: "apps/v1 Deployment default/web", reason: "AlreadyExists", message: "exists and is not Flotilla's" }] } } },
      }),
      want: [
        "member1: selected by the placement (no cluster affinity: every cluster); Work rendered (hash abc123def456), shipped, not applied (AlreadyExists).",
        "member1: last error AlreadyExists on apps/v1 Deployment default/web at 2026-11-24T11:59:55.000Z (5s ago): The object already exists in the member and Flotilla does not own it; with conflictResolution Abort it is left alone. (exists and is not Flotilla's).",
      ],
    },
    {
      name: "no policy selects the template",
      facts: facts({ policies: [policy("other", {}, { apiVersion: "apps/v1", kind: "Deployment", name: "api" })], clusters: [cluster("member1")] }),
      want: [
        "No PropagationPolicy or ClusterPropagationPolicy selects Deployment default/web (none of their resourceSelectors matches its apiVersion, kind, namespace, name and labels), so it is not propagated anywhere.",
        "member1: filtered out: no policy claims the template.",
      ],
    },
    {
      name: "another policy selects it with lower precedence",
      facts: facts({ policies: [policy("p", {}), policy("broad", {}, { apiVersion: "apps/v1", kind: "Deployment" }, { priority: 5 })], binding: binding([{ name: "member1" }]), clusters: [] }),
      want: ["PropagationPolicy default/broad also selects it (by apiVersion and kind, priority 5) but does not claim it: PropagationPolicy default/p ranks higher or holds the claim (namespaced over cluster-wide, then name over labels over kind, then priority; it has no preemption: Always)."],
    },
    {
      name: "a held deletion is said even though its condition is True; a True condition that is all well is not",
      facts: facts({
        policies: [policy("p", {})],
        binding: binding([{ name: "member1" }], {
          conditions: [
            { type: "FullyApplied", status: "True", reason: "FullyApplied", message: "applied everywhere", lastTransitionTime: "" },
            { type: "DeletionHeld", status: "True", reason: "DeletionBudgetExceeded", message: "member2: 30 deletions held", lastTransitionTime: "2026-11-24T11:58:00Z" },
          ],
        }),
        clusters: [cluster("member1")],
      }),
      want: ["Binding condition DeletionHeld=True, reason DeletionBudgetExceeded: The blast-radius brake holds removals from a cluster until an admin approves them. (member2: 30 deletions held; since 2026-11-24T11:58:00Z)."],
    },
    {
      name: "a template that does not exist",
      facts: facts({ template: undefined, clusters: [cluster("member1")] }),
      want: ["Deployment default/web does not exist in the control cluster.", "member1: filtered out: the template does not exist."],
    },
    {
      name: "a paused rollout and a cluster not Ready",
      facts: facts({
        policies: [policy("p", {})],
        binding: binding([{ name: "member1" }], { rollout: { revision: "r2", stableRevision: "r1", phase: "Paused", paused: true, clusters: [{ name: "member1", revision: "r1", phase: "Waiting", since: "2026-11-24T11:00:00Z" }] } }),
        clusters: [cluster("member1", {}, false)],
      }),
      want: [
        "Rollout of revision r2 is Paused (paused): The rollout is paused by a user (flotillactl rollout resume continues it).",
        "member1: cluster not Ready (ClusterNotReachable: no heartbeat for 40s).",
        "member1: rollout Waiting on revision r1 since 2026-11-24T11:00:00Z.",
      ],
    },
    {
      name: "an override that fails: no Work",
      facts: facts({ policies: [policy("p", {})], binding: binding([{ name: "member1" }]), clusters: [cluster("member1")], perCluster: { member1: { renderError: "ApplyOverridesFailed: path /spec/x does not exist" } } }),
      want: ["member1: selected by the placement (no cluster affinity: every cluster); Work not rendered (ApplyOverridesFailed: path /spec/x does not exist)."],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const e = explain(c.facts);
      const all = [...e.sentences, ...e.clusters.flatMap((x) => x.sentences)];
      for (const w of c.want) assert.ok(all.includes(w), `missing:\n${w}\nin:\n${all.join("\n")}`);
      const text = explanationText(e);
      for (const w of c.want) assert.ok(text.includes(w));
      assert.ok(!all.some((x) => x.startsWith("Binding condition FullyApplied=True")), "a True condition that is all well is not said");
      assert.deepEqual(JSON.parse(JSON.stringify(e)), e, "JSON-able");
    });
  }

  it("shows the latest Events about the template, newest first, and says when they could not be read", () => {
    const events = Array.from({ length: 7 }, (_, i) => ({ type: "Warning", reason: "AlreadyExists", message: `member1: try ${i}`, count: i + 1, lastTimestamp: `2026-11-24T11:5${i}:00Z`, component: "flotilla-control-plane" }));
    const e = explain(facts({ events }));
    assert.deepEqual(e.events?.map((x) => x.message), ["member1: try 6", "member1: try 5", "member1: try 4", "member1: try 3", "member1: try 2"]);
    assert.ok(e.sentences.includes("Event Warning AlreadyExists (7 times), last at 2026-11-24T11:56:00Z from flotilla-control-plane: member1: try 6"));
    assert.ok(explain(facts({ eventsError: "forbidden" })).sentences.includes("The template's Events could not be read: forbidden."));
  });

  it("--cluster keeps only that cluster's section", () => {
    const e = explain(facts({ policies: [policy("p", {})], binding: binding([{ name: "member1" }]), clusters: [cluster("member1"), cluster("member2")], cluster: "member2" }));
    assert.deepEqual(e.clusters.map((c) => c.cluster), ["member2"]);
  });
});
