// Issue 39: `flotillactl migrate kubefed` moves a live KubeFed fleet with no restart. A KubeFed host
// apiserver (a real kube-apiserver with KubeFed v0.10.0's CRDs and FederatedTypeConfigs, read from
// its Go module at test time, never committed) holds KubeFed's own example/sample1 and
// example/scheduling manifests, their cluster names changed to member1 and member2. The members
// hold what KubeFed's sync controller would have put there (its managed label, the overrides and
// the ReplicaSchedulingPreference's division applied). `migrate` plans, --apply writes into
// Flotilla's control cluster, and the agents adopt: the same uids, no new ReplicaSet, the
// overrides per cluster and the RSP's replicas as KubeFed divided them.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { ensureTestBundles } from "../env/test-bundles.ts";
import { apply, type CommandResult, eventually, getJson, kubectl, runCommand, sleep } from "./helpers.ts";

const CTL = (await ensureTestBundles()).flotillactl;
const KUBEFED_VERSION = "v0.10.0";
const NS = "test-namespace";
const MANAGED = { "kubefed.io/managed": "true" };

/** KubeFed's Go module, downloaded at test time (never committed here). */
async function kubefedModule(): Promise<string> {
  const env = { ...process.env, GOFLAGS: "-mod=mod", GOSUMDB: "off", GOTOOLCHAIN: "local" };
  const { stdout } = await promisify(execFile)("go", ["mod", "download", "-json", `sigs.k8s.io/kubefed@${KUBEFED_VERSION}`], { env, cwd: "/tmp", maxBuffer: 16 << 20 });
  const dir = (JSON.parse(stdout) as { Dir?: string }).Dir;
  assert.ok(dir, `go mod download gave no Dir: ${stdout}`);
  return dir;
}

interface ObjectJson {
  metadata: { uid: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { replicas?: number; template?: { spec?: { containers?: { image: string }[] } } };
  data?: Record<string, string>;
  status?: { availableReplicas?: number };
}

/** The Deployment KubeFed applied in a member: sample1's template with its overrides and the RSP's replicas. */
const kubefedDeployment = (replicas: number, image: string) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "test-deployment", namespace: NS, labels: { app: "nginx", ...MANAGED } },
  spec: { replicas, selector: { matchLabels: { app: "nginx" } }, template: { metadata: { labels: { app: "nginx" } }, spec: { containers: [{ image, name: "nginx" }] } } },
});
const kubefedConfigMap = (data: Record<string, string>) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "test-configmap", namespace: NS, labels: MANAGED }, data });

describe("flotillactl migrate kubefed: KubeFed's samples move with no restart", () => {
  let fleet: Fleet;
  let hostFleet: Fleet;
  let host: Cluster;
  let flotilla: Flotilla;
  let members: Cluster[];
  let samples: string;
  const before_ = new Map<string, { deployment?: ObjectJson; replicaSets?: string[]; config?: ObjectJson; role?: ObjectJson; account?: ObjectJson }>();
  const ctl = (args: string[]): Promise<CommandResult> => runCommand(process.execPath, [CTL, "migrate", "kubefed", "--kubeconfig", fleet.control.kubeconfigPath, ...args], { timeoutMs: 120_000 });
  const fromHost = (args: string[]) => ctl(["--kubefed-kubeconfig", host.kubeconfigPath, ...args]);
  const replicaSets = async (m: Cluster) => ((await getJson<{ items: { metadata: { uid: string; name: string } }[] }>(m, ["replicasets", "-n", NS, "-l", "app=nginx"]))?.items ?? []).map((r) => `${r.metadata.name}/${r.metadata.uid}`).sort();

  before(async () => {
    const module = await kubefedModule();
    [fleet, hostFleet] = await Promise.all([startFleet({ members: 2 }), startFleet({ members: 0 })]);
    host = hostFleet.control;
    members = fleet.members as Cluster[];
    // KubeFed's host: its CRDs (the Federated types', KubeFed's own and the RSP's) and type configs.
    for (const file of ["charts/kubefed/crds/crds.yaml", "charts/kubefed/charts/controllermanager/crds/crds.yaml"]) await kubectl(host, ["apply", "--server-side", "-f", join(module, file)]);
    await kubectl(host, ["create", "namespace", "kube-federation-system"]);
    await eventually("KubeFed's APIs are served", () => kubectl(host, ["get", "federateddeployments.types.kubefed.io,federatedtypeconfigs.core.kubefed.io", "-A"]).catch(() => undefined), () => true);
    await kubectl(host, ["apply", "-n", "kube-federation-system", "-f", join(module, "charts/kubefed/templates/federatedtypeconfig.yaml")]);
    // KubeFed's own samples, their cluster names changed.
    samples = await mkdtemp(join(tmpdir(), "flotilla-kubefed-samples-"));
    for (const dir of ["example/sample1", "example/scheduling"]) {
      for (const f of await readdir(join(module, dir))) {
        const text = (await readFile(join(module, dir, f), "utf8")).replaceAll("cluster1", "member1").replaceAll("cluster2", "member2");
        await writeFile(join(samples, f), text);
      }
    }
    // Not a Kubernetes object, as a KubeFed repository holds beside its manifests: listed, not fatal.
    await writeFile(join(samples, "kustomization.yaml"), "resources:\n  - namespace.yaml\n");
    await kubectl(host, ["apply", "-f", join(samples, "namespace.yaml")]);
    // Every sample whose Federated kind v0.10.0's chart serves (it has no FederatedClusterRoleBinding CRD).
    for (const f of (await readdir(samples)).filter((f) => f.startsWith("federated") && f !== "federatedclusterrolebinding.yaml")) await kubectl(host, ["apply", "-f", join(samples, f)]);

    // The members, as KubeFed's sync controller left them: member2 has the overrides, the RSP divided 10 replicas 2:3.
    for (const [i, m] of members.entries()) {
      await apply(m, JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: NS, labels: MANAGED } }));
      await kubectl(m, ["create", "-f", "-"], JSON.stringify(i === 0 ? kubefedDeployment(4, "nginx") : kubefedDeployment(6, "nginx:1.17.0-alpine")));
      await kubectl(m, ["create", "-f", "-"], JSON.stringify(kubefedConfigMap(i === 0 ? { A: "ala ma kota" } : { foo: "bar" })));
      await kubectl(m, ["create", "-f", "-"], JSON.stringify({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "test-clusterrole", labels: MANAGED }, rules: [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }] }));
    }
    // Not KubeFed's: member1's admin made a ServiceAccount of the sample's name.
    await kubectl(members[0] as Cluster, ["create", "serviceaccount", "-n", NS, "test-serviceaccount"]);
    for (const [i, m] of members.entries()) {
      const deployment = await eventually(`member${i + 1}'s Deployment runs`, () => getJson<ObjectJson>(m, ["deployment", "-n", NS, "test-deployment"]), (d) => d.status?.availableReplicas === (i === 0 ? 4 : 6), 120_000);
      before_.set(m.name, {
        deployment,
        replicaSets: await replicaSets(m),
        config: await getJson<ObjectJson>(m, ["configmap", "-n", NS, "test-configmap"]),
        role: await getJson<ObjectJson>(m, ["clusterrole", "test-clusterrole"]),
        account: await getJson<ObjectJson>(m, ["serviceaccount", "-n", NS, "test-serviceaccount"]),
      });
    }
    flotilla = await startFlotilla(fleet);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
    await hostFleet?.stop();
    if (samples !== undefined) await rm(samples, { recursive: true, force: true });
  });

  it("plans the files without writing: every Federated object converted, the plain ones listed as not KubeFed's", async () => {
    const res = await ctl(["-f", samples, "-o", "json"]);
    assert.equal(res.code, 0, res.stderr);
    const plan = JSON.parse(res.stdout) as { applied: boolean; items: { source: { kind: string; name: string }; action: string; problems: string[]; object?: { kind: string; metadata: { name: string } } }[] };
    assert.equal(plan.applied, false);
    const kinds = plan.items.filter((i) => i.object !== undefined).map((i) => `${i.object?.kind}/${i.object?.metadata.name}`);
    for (const want of ["Namespace/test-namespace", "ClusterRoleBinding/test-clusterrolebinding", "Deployment/test-deployment", "Ingress/test-ingress", "PropagationPolicy/test-deployment-deployment", "OverridePolicy/test-deployment-deployment", "ClusterPropagationPolicy/test-namespace-namespace"]) assert.ok(kinds.includes(want), `${want} in ${kinds.join(", ")}`);
    const skipped = plan.items.filter((i) => i.action === "skip" && i.source.kind !== "-").map((i) => `${i.source.kind}/${i.source.name}`).sort();
    assert.deepEqual(skipped, ["ConfigMap/web-file", "Deployment/nginx", "Namespace/test-namespace", "Service/nginx"]);
    assert.deepEqual(plan.items.filter((i) => i.source.kind === "-").map((i) => i.source.name), [join(samples, "kustomization.yaml")]);
    assert.equal(await getJson(fleet.control, ["propagationpolicies.flotilla.dev", "-n", NS, "test-deployment-deployment"]), undefined, "nothing written");
  });

  it("plans from the live host: a table, and the summary on stderr", async () => {
    const res = await fromHost([]);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^PropagationPolicy\s+test-namespace\s+test-deployment-deployment\s+create\b/m);
    assert.match(res.stdout, /^OverridePolicy\s+test-namespace\s+test-deployment-deployment\s+create\s+overrides for member2: \/spec\/replicas not carried over/m);
    assert.match(res.stderr, /# plan: \d+ to create, 0 to update, \d+ skipped; .*nothing was written \(pass --apply\)/);
  });

  it("--apply writes it, and the agents adopt what KubeFed applied: same uids, overrides and RSP replicas per cluster, no rollout", async () => {
    const res = await fromHost(["--apply"]);
    assert.equal(res.code, 0, `${res.stdout}\n${res.stderr}`);
    assert.match(res.stderr, /# \d+ created, 0 updated, 0 failed, .*nothing was deleted/);
    for (const [i, m] of members.entries()) {
      const was = before_.get(m.name);
      const d = await eventually(`member${i + 1}'s Deployment is Flotilla's`, () => getJson<ObjectJson>(m, ["deployment", "-n", NS, "test-deployment"]), (x) => x.metadata.labels?.["flotilla.dev/work"] !== undefined, 120_000);
      assert.equal(d.metadata.uid, was?.deployment?.metadata.uid, "adopted, not recreated");
      assert.equal(d.spec?.replicas, i === 0 ? 4 : 6, "the RSP's division, as KubeFed made it");
      assert.equal(d.spec?.template?.spec?.containers?.[0]?.image, i === 0 ? "nginx" : "nginx:1.17.0-alpine", "member2's override");
      const config = await eventually(`member${i + 1}'s ConfigMap is Flotilla's`, () => getJson<ObjectJson>(m, ["configmap", "-n", NS, "test-configmap"]), (c) => c.metadata.labels?.["flotilla.dev/work"] !== undefined);
      assert.equal(config.metadata.uid, was?.config?.metadata.uid);
      assert.deepEqual(config.data, i === 0 ? { A: "ala ma kota" } : { foo: "bar" });
      const role = await eventually(`member${i + 1}'s ClusterRole is Flotilla's`, () => getJson<ObjectJson>(m, ["clusterrole", "test-clusterrole"]), (r) => r.metadata.labels?.["flotilla.dev/work"] !== undefined);
      assert.equal(role.metadata.uid, was?.role?.metadata.uid);
    }
    await sleep(3000);
    for (const m of members) {
      const was = before_.get(m.name);
      assert.deepEqual(await replicaSets(m), was?.replicaSets, `${m.name}: no new ReplicaSet, no pod restarted`);
      assert.equal((await getJson<ObjectJson>(m, ["deployment", "-n", NS, "test-deployment"]))?.metadata.uid, was?.deployment?.metadata.uid);
    }
    const account = await getJson<ObjectJson>(members[0] as Cluster, ["serviceaccount", "-n", NS, "test-serviceaccount"]);
    assert.equal(account?.metadata.uid, before_.get((members[0] as Cluster).name)?.account?.metadata.uid);
    assert.equal(account?.metadata.labels?.["flotilla.dev/work"], undefined, "not KubeFed's: left alone");
    assert.ok(await getJson(host, ["federateddeployments.types.kubefed.io", "-n", NS, "test-deployment"]), "nothing deleted in KubeFed's host");
  });

  it("a later run whose input places an adopted object nowhere (an empty clusters list) writes no policy over the running one", async () => {
    const dir = await mkdtemp(join(tmpdir(), "flotilla-kubefed-nowhere-"));
    try {
      await writeFile(join(dir, "ns.yaml"), await readFile(join(samples, "federatednamespace.yaml"), "utf8"));
      const configMap = (await readFile(join(samples, "federatedconfigmap.yaml"), "utf8")).replace(/placement:\n(\s+)clusters:\n(\s+- name: \S+\n)+/, "placement:\n$1clusters: []\n");
      assert.match(configMap, /clusters: \[\]/);
      await writeFile(join(dir, "cm.yaml"), configMap);
      const res = await ctl(["-f", dir, "--apply"]);
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stdout, /^PropagationPolicy\s+test-namespace\s+test-configmap-configmap\s+skip\s+not written: it would empty the placement/m);
      const pp = await getJson<{ spec: { placement: { clusterAffinity?: { clusterNames?: string[] } } } }>(fleet.control, ["propagationpolicies.flotilla.dev", "-n", NS, "test-configmap-configmap"]);
      assert.deepEqual(pp?.spec.placement.clusterAffinity?.clusterNames, ["member1", "member2"], "the running placement stays");
      await sleep(2000);
      for (const m of members) {
        const config = await getJson<ObjectJson>(m, ["configmap", "-n", NS, "test-configmap"]);
        assert.equal(config?.metadata.uid, before_.get(m.name)?.config?.metadata.uid, `${m.name}'s ConfigMap stays`);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("without exactly one source it is a usage error (exit 2); a host that is not KubeFed's fails (exit 1)", async () => {
    assert.equal((await ctl([])).code, 2);
    assert.equal((await ctl(["-f", samples, "--kubefed-kubeconfig", host.kubeconfigPath])).code, 2);
    const notKubefed = await ctl(["--kubefed-kubeconfig", fleet.control.kubeconfigPath]);
    assert.equal(notKubefed.code, 1, notKubefed.stderr);
    assert.match(notKubefed.stderr, /not KubeFed's host/);
  });
});
