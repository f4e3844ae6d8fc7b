// flotillactl explain on a real fleet (issue 24): why a template is, or is not, in each cluster,
// read through the Admin API: the claiming policy, the rule that selected or filtered each
// cluster, the Work rendered, shipped and applied, health, a conflict's last error and its time,
// a template no policy selects, and -o json.
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import type { Explanation } from "../../control-plane/explain/index.ts";
import { apply, type CommandResult, deploymentJson, eventually, kubectl, placementPolicyJson, runCommand } from "./helpers.ts";
import { ensureTestBundles } from "../env/test-bundles.ts";

const NS = "exp";
const CTL = (await ensureTestBundles()).flotillactl;
const FLOTILLA = (await ensureTestBundles()).flotilla;

describe("flotillactl explain", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let cwd: string;
  const ctl = (args: string[]): Promise<CommandResult> => runCommand(process.execPath, [CTL, ...args], { cwd, env: { ...process.env, FLOTILLA_STATE_DIR: fleet.root } });
  const explainJson = async (args: string[]): Promise<Explanation> => {
    const r = await ctl(["explain", ...args, "-o", "json"]);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as Explanation;
  };
  const section = (e: Explanation, cluster: string) => e.clusters.find((c) => c.cluster === cluster);

  before(async () => {
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet);
    cwd = join(fleet.root, "explain-cwd");
    await mkdir(cwd);
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("says member1 was selected by clusterNames and applied and healthy, and member2 filtered out by which rule", async () => {
    await apply(fleet.control, deploymentJson("web", NS, 2, "nginx:1.25"));
    await apply(fleet.control, placementPolicyJson("web", NS, ["member1"]));
    const text = await eventually(
      "explain says member1 applied and healthy",
      async () => (await ctl(["explain", "deployment/web", "-n", NS])).stdout,
      (out) => /^member1: .*applied \d+s ago; healthy\.$/m.test(out),
      120_000,
    );
    assert.match(text, /^Deployment exp\/web \(apps\/v1\)$/m);
    assert.match(text, /PropagationPolicy exp\/web claims Deployment exp\/web \(selected by name, priority 0\)\./);
    assert.match(text, /^member1: selected by clusterAffinity\.clusterNames \[member1\]; given 2 of 2 replicas; Work rendered \(hash [0-9a-f]{12}\), shipped, applied \d+s ago; healthy\.$/m);
    assert.match(text, /^member2: filtered out: not in clusterAffinity\.clusterNames \[member1\]\.$/m);

    const e = await explainJson(["deploy/web", "-n", NS]);
    assert.equal(e.policy?.name, "web");
    assert.equal(e.policy?.specificity, "name");
    const m1 = section(e, "member1");
    assert.equal(m1?.verdict.placed, true);
    assert.equal(m1?.work?.applied, true);
    assert.equal(m1?.work?.health, "Healthy");
    const works = JSON.parse((await ctl(["get", "works", "--cluster", "member1", "-o", "json"])).stdout) as { workKey: string; contentHash: string }[];
    assert.equal(m1?.work?.hash, works.find((w) => w.workKey === `apps/v1/Deployment/${NS}/web`)?.contentHash, "the hash explain names is the Work the hub holds");
    const m2 = section(e, "member2");
    assert.deepEqual(m2?.verdict, { cluster: "member2", placed: false, rule: "clusterNames", detail: "not in clusterAffinity.clusterNames [member1]" });
    assert.equal(m2?.work, undefined, "member2 has no Work");

    const only = await ctl(["explain", "deployment/web", "-n", NS, "--cluster", "member2"]);
    assert.equal(only.code, 0, only.stderr);
    assert.match(only.stdout, /^member2: filtered out/m);
    assert.doesNotMatch(only.stdout, /^member1:/m);
  });

  it("shows a conflict's last error with its time: an object the member already holds, not Flotilla's (Abort)", async () => {
    const m1 = fleet.members[0] as Cluster;
    await kubectl(m1, ["create", "namespace", NS]).catch(() => undefined);
    await kubectl(m1, ["create", "configmap", "taken", "-n", NS, "--from-literal=owner=member-admin"]);
    const start = Date.now();
    await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "taken", namespace: NS }, data: { owner: "flotilla" } }));
    await apply(
      fleet.control,
      JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "taken", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "taken" }], placement: { clusterAffinity: { clusterNames: ["member1", "member2"] } } } }),
    );
    const text = await eventually("explain shows member1's AlreadyExists", async () => (await ctl(["explain", "cm/taken", "-n", NS])).stdout, (out) => /^ {2}member1: last error AlreadyExists/m.test(out) && /^member2: .*applied/m.test(out) && /Binding condition Propagation=False/.test(out), 120_000);
    assert.match(text, /^member1: selected by clusterAffinity\.clusterNames \[member1 member2\]; Work rendered \(hash [0-9a-f]{12}\), shipped, not applied \(AlreadyExists\)\.$/m);
    const line = /^ {2}member1: last error AlreadyExists at (\S+) \((\d+)s ago\): The object already exists in the member and Flotilla does not own it; with conflictResolution Abort it is left alone\. \((.+)\)\.$/m.exec(text);
    assert.ok(line !== null, text);
    const at = Date.parse(line[1] ?? "");
    assert.ok(at >= start - 1000 && at <= Date.now(), `the error's time ${line[1]} lies within the test`);
    assert.match(line[3] ?? "", /^ConfigMap\/taken: .*Overwrite/, "the agent's message names the object and says how to take it over");
    assert.match(text, /^member2: selected by .*shipped, applied \d+s ago/m);
    assert.match(text, /Binding condition Propagation=False, reason CheckClusters: At least one cluster reports a problem/);

    const withEvent = await eventually("explain shows the Warning Event", async () => (await ctl(["explain", "cm/taken", "-n", NS])).stdout, (out) => /Event Warning AlreadyExists/.test(out), 60_000);
    assert.match(withEvent, /^ {2}Event Warning AlreadyExists(?: \(\d+ times\))?, last at \S+ from flotilla-control-plane: .*member1/m);

    const e = await explainJson(["configmap/taken", "-n", NS, "--cluster", "member1"]);
    assert.deepEqual(e.clusters.map((c) => c.cluster), ["member1"]);
    assert.equal(e.clusters[0]?.work?.reason, "AlreadyExists");
    assert.equal(e.clusters[0]?.work?.applied, false);
    assert.ok(e.clusters[0]?.work?.at !== undefined);
  });

  it("shows a failed apply's last error: a kind whose CRD the member lacks", async () => {
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "gizmos.example.com" },
      spec: {
        group: "example.com",
        scope: "Namespaced",
        names: { plural: "gizmos", singular: "gizmo", kind: "Gizmo" },
        versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { size: { type: "integer" } } } } } } }],
      },
    };
    await apply(fleet.control, JSON.stringify(crd));
    await kubectl(fleet.control, ["wait", "--for=condition=Established", "crd/gizmos.example.com", "--timeout=30s"]);
    await apply(fleet.control, JSON.stringify({ apiVersion: "example.com/v1", kind: "Gizmo", metadata: { name: "g1", namespace: NS }, spec: { size: 3 } }));
    await apply(
      fleet.control,
      JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "g1", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "example.com/v1", kind: "Gizmo", name: "g1" }], placement: { clusterAffinity: { clusterNames: ["member1"] } } } }),
    );
    const text = await eventually("explain shows member1's failed apply", async () => (await ctl(["explain", "gizmo/g1", "-n", NS])).stdout, (out) => /^ {2}member1: last error /m.test(out), 120_000);
    assert.match(text, /^member1: selected by clusterAffinity\.clusterNames \[member1\]; Work rendered \(hash [0-9a-f]{12}\), shipped, not applied \(CreationFailed\)\.$/m);
    assert.match(text, /^ {2}member1: last error CreationFailed at \S+ \(\d+s ago\): The object could not be created in the member: .* \(Gizmo\/g1: the member does not serve Gizmo in example\.com\/v1\)\.$/m);
    assert.match(text, /^member2: filtered out: not in clusterAffinity\.clusterNames \[member1\]\.$/m);
  });

  it("says when no policy selects a template", async () => {
    await apply(fleet.control, deploymentJson("orphan", NS, 1, "nginx:1.25"));
    const r = await ctl(["explain", "deployment/orphan", "-n", NS]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /No PropagationPolicy or ClusterPropagationPolicy selects Deployment exp\/orphan \(none of their resourceSelectors matches its apiVersion, kind, namespace, name and labels\), so it is not propagated anywhere\./);
    assert.match(r.stdout, /^member1: filtered out: no policy claims the template\.$/m);
    const e = await explainJson(["deployment/orphan", "-n", NS]);
    assert.equal(e.policy, undefined);
    assert.equal(e.binding, undefined);
    assert.equal(e.template.found, true);
    assert.deepEqual(section(e, "member1")?.verdict, { cluster: "member1", placed: false, rule: "noPolicy", detail: "no policy claims the template" });
  });

  it("names an untolerated taint", async () => {
    await kubectl(fleet.control, ["patch", "clusters.flotilla.dev", "member2", "--type", "merge", "-p", JSON.stringify({ spec: { taints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }] } })]);
    await apply(fleet.control, deploymentJson("anywhere", NS, 1, "nginx:1.25"));
    await apply(fleet.control, JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "anywhere", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "anywhere" }] } }));
    const text = await eventually("explain names the taint", async () => (await ctl(["explain", "deployment/anywhere", "-n", NS])).stdout, (out) => /^member1: selected by/m.test(out) && /^member2: filtered out/m.test(out), 60_000);
    assert.match(text, /^member1: selected by the placement \(no cluster affinity: every cluster\)/m);
    assert.match(text, /^member2: filtered out: taint dedicated=gpu:NoSchedule not tolerated by placement\.clusterTolerations\.$/m);
  });

  it("a viewer may explain, and explaining a Secret shows none of its data", async () => {
    const dir = join(cwd, "vera");
    const issued = await runCommand(process.execPath, [FLOTILLA, "certs", "admin", "--dir", flotilla.certsDir, "--user", "vera", "--role", "viewer", "--out", dir], { env: { ...process.env, KUBECONFIG: "" } });
    assert.equal(issued.code, 0, issued.stderr);
    await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "creds", namespace: NS }, stringData: { token: "viewer-must-not-see" } }));
    await apply(
      fleet.control,
      JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "creds", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "Secret", name: "creds" }], placement: { clusterAffinity: { clusterNames: ["member1"] } } } }),
    );
    const asViewer = (args: string[]) => ctl([...args, "--cert", join(dir, "admin.crt"), "--key", join(dir, "admin.key")]);
    const r = await eventually("the viewer's explain shows member1 applied", () => asViewer(["explain", "secret/creds", "-n", NS]), (x) => x.code === 0 && /^member1: .*applied/m.test(x.stdout), 60_000);
    assert.match(r.stdout, /PropagationPolicy exp\/creds claims Secret exp\/creds/);
    const json = await asViewer(["explain", "secret/creds", "-n", NS, "-o", "json"]);
    assert.equal(json.code, 0, json.stderr);
    for (const out of [r.stdout, json.stdout]) {
      assert.doesNotMatch(out, /viewer-must-not-see/);
      assert.doesNotMatch(out, new RegExp(Buffer.from("viewer-must-not-see").toString("base64")));
    }
    const render = await asViewer(["render", "secret/creds", "-n", NS, "--cluster", "member1"]);
    assert.equal(render.code, 1, "a viewer still may not render the Secret itself");
  });

  it("exits 1 for a kind the control cluster does not serve and 2 for bad usage", async () => {
    const unknown = await ctl(["explain", "nosuchkind/x", "-n", NS]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /INVALID_ARGUMENT: the control cluster serves no resource named "nosuchkind"/);
    const usage = await ctl(["explain"]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /usage: flotillactl explain <kind>\/<name>/);
  });
});
