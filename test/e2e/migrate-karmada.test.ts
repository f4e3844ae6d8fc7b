// Issue 26: `flotillactl migrate karmada` moves a live fleet from Karmada with no restart. A
// "Karmada" apiserver (a real kube-apiserver with Karmada v1.18's CRDs, read from its Go module at
// test time) holds Karmada-shaped policies and templates; the member holds the objects Karmada's
// agent applied (created here as it would: its labels and annotations). `migrate` plans, then
// --apply writes into Flotilla's control cluster, and Flotilla's agent adopts the member's objects:
// same uid, same generation, no new ReplicaSet. An object that is not Karmada's is left alone.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type BindingJson, clusterItem, type CommandResult, eventually, getJson, kubectl, runCommand, sleep } from "./helpers.ts";
import { ensureTestBundles } from "../env/test-bundles.ts";

const CTL = (await ensureTestBundles()).flotillactl;
const NS = "shop";
const KARMADA_VERSION = "v1.18.0";

/** Karmada's CRD files from its Go module (never committed here): policy, config and work. */
async function karmadaCrdFiles(): Promise<string[]> {
  const env = { ...process.env, GOFLAGS: "-mod=mod", GOSUMDB: "off", GOTOOLCHAIN: "local" };
  const { stdout } = await promisify(execFile)("go", ["mod", "download", "-json", `github.com/karmada-io/karmada@${KARMADA_VERSION}`], { env, cwd: "/tmp", maxBuffer: 16 << 20 });
  const dir = (JSON.parse(stdout) as { Dir?: string }).Dir;
  assert.ok(dir, `go mod download gave no Dir: ${stdout}`);
  const bases = join(dir, "charts/karmada/_crds/bases");
  const files: string[] = [];
  for (const group of ["policy", "config", "work"]) for (const f of await readdir(join(bases, group))) files.push(join(bases, group, f));
  return files;
}

interface ObjectJson {
  metadata: { uid: string; generation?: number; labels?: Record<string, string>; annotations?: Record<string, string>; ownerReferences?: { uid: string }[] };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
  status?: { observedGeneration?: number; availableReplicas?: number };
}

const karmadaClaim = { "propagationpolicy.karmada.io/permanent-id": "5d8b3c1e-4b9a-4d2a-9a51-6b1f0e0c7a11" };
const deployment = (extra: { labels?: Record<string, string>; annotations?: Record<string, string> } = {}) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: NS, labels: { app: "web", ...extra.labels }, ...(extra.annotations ? { annotations: extra.annotations } : {}) },
  spec: { replicas: 3, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx:1.27" }] } } },
});
const configMap = (name: string, data: Record<string, string>, extra: { labels?: Record<string, string>; annotations?: Record<string, string> } = {}) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: NS, ...extra }, data });
/** What Karmada's agent puts on every object it applies in a member (pkg/util ManagedResourceLabels and annotations). */
const appliedByKarmada = (work: string) => ({
  labels: { ...karmadaClaim, "karmada.io/managed": "true", "work.karmada.io/permanent-id": "0c9e2f6a-7d1b-4e8c-b0a2-3f5d6e7a8b9c", "resourcebinding.karmada.io/permanent-id": "a1b2c3d4-0000-4000-8000-000000000001" },
  annotations: { "work.karmada.io/name": work, "work.karmada.io/namespace": "karmada-es-member1", "resourcebinding.karmada.io/name": work, "resourcebinding.karmada.io/namespace": NS, "propagationpolicy.karmada.io/name": "web", "propagationpolicy.karmada.io/namespace": NS },
});

describe("flotillactl migrate karmada: a live fleet moves with no restart", () => {
  let fleet: Fleet;
  let karmadaFleet: Fleet;
  let karmada: Cluster;
  let flotilla: Flotilla;
  let m1: Cluster;
  const before_: { deployment?: ObjectJson; replicaSets?: string[]; config?: ObjectJson; foreign?: ObjectJson } = {};
  const ctl = (args: string[]): Promise<CommandResult> =>
    runCommand(process.execPath, [CTL, "migrate", "karmada", "--karmada-kubeconfig", karmada.kubeconfigPath, "--kubeconfig", fleet.control.kubeconfigPath, ...args], { timeoutMs: 120_000 });
  const replicaSets = async () => ((await getJson<{ items: { metadata: { uid: string; name: string } }[] }>(m1, ["replicasets", "-n", NS, "-l", "app=web"]))?.items ?? []).map((r) => `${r.metadata.name}/${r.metadata.uid}`).sort();

  before(async () => {
    // The "Karmada" apiserver: a control-role cluster (no workload controllers), as karmada-apiserver is.
    [fleet, karmadaFleet] = await Promise.all([startFleet({ members: 1 }), startFleet({ members: 0 })]);
    karmada = karmadaFleet.control;
    m1 = fleet.members[0] as Cluster;
    for (const file of await karmadaCrdFiles()) await kubectl(karmada, ["apply", "--server-side", "-f", file]);
    await eventually("Karmada's policy API is served", () => kubectl(karmada, ["get", "propagationpolicies.policy.karmada.io", "-A"]).catch(() => undefined), () => true);

    // Karmada's side: templates (with the claim Karmada's detector writes) and policies.
    await kubectl(karmada, ["create", "namespace", NS]);
    await apply(karmada, JSON.stringify(deployment({ labels: karmadaClaim, annotations: { "propagationpolicy.karmada.io/name": "web", "propagationpolicy.karmada.io/namespace": NS } })));
    await apply(karmada, JSON.stringify(configMap("web-config", { mode: "live" }, { labels: { app: "web", ...karmadaClaim } })));
    await apply(karmada, JSON.stringify(configMap("settings", { owner: "karmada" }, { labels: { app: "web" } })));
    await apply(
      karmada,
      JSON.stringify({
        apiVersion: "policy.karmada.io/v1alpha1",
        kind: "PropagationPolicy",
        metadata: { name: "web", namespace: NS, labels: karmadaClaim },
        spec: {
          resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web" }, { apiVersion: "v1", kind: "ConfigMap", labelSelector: { matchLabels: { app: "web" } } }],
          placement: { clusterAffinity: { clusterNames: ["member1"] } },
          conflictResolution: "Abort",
          failover: { application: { decisionConditions: { tolerationSeconds: 60 }, purgeMode: "Gracefully", gracePeriodSeconds: 30 } },
        },
      }),
    );
    await apply(
      karmada,
      JSON.stringify({
        apiVersion: "policy.karmada.io/v1alpha1",
        kind: "OverridePolicy",
        metadata: { name: "web-eu", namespace: NS },
        spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web" }], overrideRules: [{ targetCluster: { clusterNames: ["member1"] }, overriders: { labelsOverrider: [{ operator: "add", value: { region: "eu" } }] } }] },
      }),
    );
    await apply(karmada, JSON.stringify({ apiVersion: "policy.karmada.io/v1alpha1", kind: "ClusterPropagationPolicy", metadata: { name: "gpu" }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "none-such" }], schedulerName: "volcano" } }));

    // The member, as Karmada's agent left it: its objects carry Karmada's labels (the override applied).
    await kubectl(m1, ["create", "namespace", NS]);
    const k1 = appliedByKarmada("web-deployment");
    await kubectl(m1, ["create", "-f", "-"], JSON.stringify(deployment({ labels: { ...k1.labels, region: "eu" }, annotations: k1.annotations })));
    await kubectl(m1, ["create", "-f", "-"], JSON.stringify(configMap("web-config", { mode: "live" }, { labels: { app: "web", ...appliedByKarmada("web-config-configmap").labels }, annotations: appliedByKarmada("web-config-configmap").annotations })));
    // Not Karmada's: a member admin's ConfigMap of the same name as a template.
    await kubectl(m1, ["create", "-f", "-"], JSON.stringify(configMap("settings", { owner: "member-admin" })));
    before_.deployment = await eventually("Karmada's Deployment runs", () => getJson<ObjectJson>(m1, ["deployment", "-n", NS, "web"]), (d) => d.status?.availableReplicas === 3, 120_000);
    before_.replicaSets = await replicaSets();
    assert.equal(before_.replicaSets.length, 1);
    before_.config = await getJson<ObjectJson>(m1, ["configmap", "-n", NS, "web-config"]);
    before_.foreign = await getJson<ObjectJson>(m1, ["configmap", "-n", NS, "settings"]);

    flotilla = await startFlotilla(fleet);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
    await karmadaFleet?.stop();
  });

  it("plans without writing: what it would create, and the problems per object", async () => {
    const res = await ctl(["-o", "json"]);
    assert.equal(res.code, 0, res.stderr);
    const plan = JSON.parse(res.stdout) as { applied: boolean; items: { source: { kind: string; name: string }; action: string; problems: string[]; object?: { kind: string; metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> }; spec?: Record<string, unknown> } }[] };
    assert.equal(plan.applied, false);
    const row = (kind: string, name: string) => plan.items.find((i) => (i.object?.kind ?? i.source.kind) === kind && (i.object?.metadata.name ?? i.source.name) === name);
    const order = plan.items.map((i) => `${i.object?.kind}/${i.object?.metadata.name}:${i.action}`);
    assert.deepEqual([...order].sort(), ["ClusterPropagationPolicy/gpu:create", "ConfigMap/settings:create", "ConfigMap/web-config:create", "Deployment/web:create", "Namespace/shop:create", "OverridePolicy/web-eu:create", "PropagationPolicy/web:create"]);
    const at = (prefix: string) => order.findIndex((o) => o.startsWith(prefix));
    assert.ok(at("Namespace/") === 0 && at("OverridePolicy/") < at("Deployment/") && at("Deployment/") < at("PropagationPolicy/"), `namespaces, overrides, templates, then policies: ${order.join(", ")}`);
    assert.deepEqual(row("PropagationPolicy", "web")?.problems, [], "failover is carried over: Flotilla acts on it");
    const failover = row("PropagationPolicy", "web")?.object?.spec?.failover as { application?: { decisionConditions?: { tolerationSeconds?: number }; purgeMode?: string; gracePeriodSeconds?: number } } | undefined;
    assert.equal(failover?.application?.decisionConditions?.tolerationSeconds, 60);
    assert.equal(failover?.application?.purgeMode, "Gracefully");
    assert.equal(failover?.application?.gracePeriodSeconds, 30);
    assert.match(row("ClusterPropagationPolicy", "gpu")?.problems[0] ?? "", /spec\.schedulerName: "volcano": Flotilla has one scheduler/);
    const web = row("Deployment", "web")?.object;
    assert.deepEqual(web?.metadata.labels, { app: "web" }, "Karmada's claim label is dropped");
    assert.deepEqual(web?.metadata.annotations, { "flotilla.dev/adopt": "karmada" });
    assert.equal(row("PropagationPolicy", "web")?.object?.spec?.conflictResolution, "Abort", "Abort stays Abort: adoption does not need Overwrite");
    assert.equal(await getJson(fleet.control, ["propagationpolicies.flotilla.dev", "-n", NS, "web"]), undefined, "nothing written");
    const table = await ctl([]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^PropagationPolicy\s+shop\s+web\s+create\b/m);
    assert.doesNotMatch(table.stdout, /spec\.failover/);
    assert.match(table.stderr, /# plan: 7 to create, 0 to update, 0 skipped; 1 problem on 1 object; nothing was written \(pass --apply\)/);
  });

  it("--apply writes into the control cluster, and Flotilla's agent adopts Karmada's objects: same uid, no rollout", async () => {
    const res = await ctl(["--apply"]);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stderr, /# 7 created, 0 updated, 0 failed, 0 skipped; 1 problem on 1 object; nothing was deleted/);
    const pp = await getJson<ObjectJson & { metadata: { managedFields: { manager: string }[] } }>(fleet.control, ["propagationpolicies.flotilla.dev", "-n", NS, "web", "--show-managed-fields"]);
    assert.deepEqual(pp?.metadata.managedFields.map((f) => f.manager), ["flotillactl-migrate"]);

    const adopted = await eventually("member1's Deployment is Flotilla's", () => getJson<ObjectJson>(m1, ["deployment", "-n", NS, "web"]), (d) => d.metadata.labels?.["flotilla.dev/work"] !== undefined, 120_000);
    assert.equal(adopted.metadata.uid, before_.deployment?.metadata.uid, "the same object: adopted, not recreated");
    assert.deepEqual(adopted.spec, before_.deployment?.spec, "the spec (the pod template too) is as Karmada left it");
    // kube-apiserver bumps a Deployment's generation for a change of its annotations too (they are
    // copied to its ReplicaSets); what must not change is the pod template: the ReplicaSets below.
    assert.equal(adopted.metadata.labels?.region, "eu", "the migrated OverridePolicy applies as Karmada's did");
    assert.equal(adopted.metadata.labels?.["karmada.io/managed"], "true", "Karmada's labels stay: nothing is removed from the member");
    const config = await eventually("the ConfigMap is adopted", () => getJson<ObjectJson>(m1, ["configmap", "-n", NS, "web-config"]), (c) => c.metadata.labels?.["flotilla.dev/work"] !== undefined);
    assert.equal(config.metadata.uid, before_.config?.metadata.uid);

    const binding = await eventually("the binding says the admin's ConfigMap is not taken", () => getJson<BindingJson>(fleet.control, ["rb", "-n", NS, "settings-configmap"]), (b) => clusterItem(b, "member1")?.reason === "AlreadyExists" || JSON.stringify(b).includes("AlreadyExists"));
    assert.ok(binding);
    await sleep(3000);
    assert.deepEqual(await replicaSets(), before_.replicaSets, "no new ReplicaSet: no pod restarted");
    const settled = await getJson<ObjectJson>(m1, ["deployment", "-n", NS, "web"]);
    assert.deepEqual(settled?.spec?.template, before_.deployment?.spec?.template);
    assert.equal(settled?.status?.availableReplicas, 3, "every pod still available");
    const foreign = await getJson<ObjectJson>(m1, ["configmap", "-n", NS, "settings"]);
    assert.equal(foreign?.metadata.uid, before_.foreign?.metadata.uid);
    assert.deepEqual(foreign?.data, { owner: "member-admin" }, "an object that is not Karmada's is left alone (AlreadyExists)");
    assert.equal(foreign?.metadata.labels?.["flotilla.dev/work"], undefined);
  });

  it("runs again as updates, and deletes nothing in Karmada", async () => {
    const res = await ctl(["--apply"]);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stderr, /# 0 created, 7 updated, 0 failed/);
    assert.ok(await getJson(karmada, ["propagationpolicies.policy.karmada.io", "-n", NS, "web"]), "Karmada's policy is still there");
    assert.ok(await getJson(karmada, ["deployment", "-n", NS, "web"]), "Karmada's template is still there");
  });

  it("bad usage exits 2; an unreachable Karmada exits 1", async () => {
    const none = await runCommand(process.execPath, [CTL, "migrate", "karmada"]);
    assert.equal(none.code, 2, none.stderr);
    const missing = await runCommand(process.execPath, [CTL, "migrate", "karmada", "--karmada-kubeconfig", "/nonexistent/kubeconfig", "--kubeconfig", fleet.control.kubeconfigPath]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no kubeconfig at \/nonexistent\/kubeconfig/);
  });
});
