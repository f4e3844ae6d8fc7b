// Issue 41 against a real control cluster: the leader's ClusterProfile controller publishes one
// SIG Multicluster ClusterProfile per Cluster, keeps its status with the Cluster (and only writes
// when Flotilla's part changed), deletes it once the Cluster is gone (also when it went while no
// replica led), and never touches a profile another cluster manager labelled, nor the
// ClusterProfile CRD another installer served.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { startClusterProfiles } from "../control-plane/cluster-profiles/index.ts";
import type { ClusterProfile } from "../control-plane/cluster-profiles/cluster-profile.ts";
import type { KubeConfig } from "@kubernetes/client-node";
import { type ControlPlaneContext, type ControlPlaneOptions, createContext, type Part } from "../control-plane/context.ts";
import { installCrds } from "../control-plane/crd-install/crds.ts";
import { silentLogger } from "../shared/logger.ts";
import { isKubeStatus, KubeRest } from "../shared/kube-rest.ts";
import { type Cluster, startCluster } from "./env/cluster.ts";
import { eventually, sleep } from "./e2e/helpers.ts";

const NS = "fleet-inventory";
const CA_PEM = "-----BEGIN CERTIFICATE-----\nTUlJQ2Zsb3RpbGxh\n-----END CERTIFICATE-----\n";
const MEMBER_API = "https://flotilla.example:9443";
const CRD = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/clusterprofiles.multicluster.x-k8s.io";
const profilePath = (name: string) => `/apis/multicluster.x-k8s.io/v1alpha1/namespaces/${NS}/clusterprofiles/${name}`;
const clusterPath = (name: string) => `/apis/flotilla.dev/v1alpha1/clusters/${name}`;

const foreignProfile = (name: string) => ({
  apiVersion: "multicluster.x-k8s.io/v1alpha1",
  kind: "ClusterProfile",
  metadata: { name, namespace: NS, labels: { "x-k8s.io/cluster-manager": "open-cluster-management" } },
  spec: { displayName: `ocm ${name}`, clusterManager: { name: "open-cluster-management" } },
});

/** What createContext needs; the part reads clusterProfileNamespace and tls.caPem. */
function options(kc: KubeConfig): ControlPlaneOptions {
  const timings = { clusterFailureMs: 30_000, clusterSuccessMs: 0, clusterStatusUpdateMs: 1000, clusterLeaseRenewMs: 1000, clusterLeaseNamespace: "flotilla-cluster-lease", clusterStartupGraceMs: 30_000, gracefulEvictionPeriodMs: 1000 };
  return { kc, log: silentLogger(), grpcListen: "127.0.0.1:0", tls: { caPem: CA_PEM, certPem: "", keyPem: "" }, healthListen: "", installCrds: false, ...timings, clusterProfileNamespace: NS };
}

/** The part as the assembly runs it on the leader: synced, its controllers started, leading. */
async function lead(ctx: ControlPlaneContext, o: { memberApi?: boolean; serve?: boolean } = {}): Promise<Part> {
  const part = startClusterProfiles(ctx, { memberApiUrl: () => (o.memberApi === false ? undefined : MEMBER_API) });
  await part.synced?.();
  for (const c of part.leaderControllers ?? []) c.start();
  part.startedLeading?.();
  if (o.serve !== false) await part.serve?.();
  return part;
}

async function stop(part: Part): Promise<void> {
  await part.stop?.();
  await Promise.all((part.leaderControllers ?? []).map((c) => c.stop()));
}

describe("ClusterProfiles in a real control cluster", () => {
  let control: Cluster;
  let rest: KubeRest;
  let ctx: ControlPlaneContext;
  let part: Part;
  const get = (name: string) =>
    rest.get<ClusterProfile>(profilePath(name)).catch((err: unknown) => {
      if (isKubeStatus(err, 404)) return undefined;
      throw err;
    });
  const condition = (p: ClusterProfile, type: string) => p.status?.conditions?.find((c) => c.type === type);
  const property = (p: ClusterProfile, name: string) => p.status?.properties?.find((x) => x.name === name)?.value;
  const setStatus = (name: string, status: object) => rest.mergePatch(`${clusterPath(name)}/status`, { status });
  const now = () => new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const readyStatus = (version: string, ready: "True" | "False") => ({
    kubernetesVersion: version,
    lastHeartbeatTime: now(),
    conditions: [{ type: "Ready", status: ready, reason: ready === "True" ? "ClusterReady" : "ClusterNotReachable", message: ready === "True" ? "heartbeats arrive" : "no heartbeat for 40s", lastTransitionTime: now() }],
  });

  before(async () => {
    control = await startCluster({ name: "control", role: "control", dir: join(tmpdir(), `flotilla-cluster-profiles-${process.pid}`) });
    rest = new KubeRest(control.kubeConfig());
    // Another cluster manager installed the ClusterProfile CRD first: the same schema, without
    // Flotilla's revision annotation, with a description of its own to recognise it by.
    const file = parse((await readFile(new URL("../control-plane/crds/clusterprofiles.yaml", import.meta.url), "utf8")).split(/^---$/m)[1] as string) as { metadata: { annotations?: Record<string, string> }; spec: { versions: { schema: { openAPIV3Schema: { description: string } } }[] } };
    delete file.metadata.annotations;
    (file.spec.versions[0] as { schema: { openAPIV3Schema: { description: string } } }).schema.openAPIV3Schema.description = "installed by another cluster manager";
    await rest.apply(CRD, file, "other-installer");
    await installCrds(control.kubeConfig());
    // The namespace does not exist yet: the leader makes it with the first profile.
    ctx = createContext(options(control.kubeConfig()), () => true);
    await ctx.caches.start();
    part = await lead(ctx);
  });
  after(async () => {
    if (part !== undefined) await stop(part);
    ctx?.caches.stop();
    ctx?.rest.close();
    rest?.close();
    await control?.stop();
  });

  it("keeps the ClusterProfile CRD another installer served", async () => {
    const crd = await rest.get<{ metadata: { annotations?: Record<string, string> }; spec: { versions: { schema: { openAPIV3Schema: { description: string } } }[] } }>(CRD);
    assert.equal(crd.metadata.annotations?.["flotilla.dev/crd-revision"], undefined);
    assert.equal(crd.spec.versions[0]?.schema.openAPIV3Schema.description, "installed by another cluster manager");
  });

  it("publishes a Cluster's profile, then follows the Cluster, writing only when it changed", async () => {
    await rest.request("POST", "/apis/flotilla.dev/v1alpha1/clusters", { body: { apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name: "member1" }, spec: { region: "eu-west-1", zone: "eu-west-1a", provider: "aws" } } });
    const first = await eventually("member1's profile", () => get("member1"), (p) => condition(p, "Joined") !== undefined, 20_000);
    assert.deepEqual(first.metadata.labels, { "x-k8s.io/cluster-manager": "flotilla" });
    assert.deepEqual(first.spec, { displayName: "member1", clusterManager: { name: "flotilla" } });
    assert.equal(condition(first, "Joined")?.status, "False", "no agent yet");
    assert.equal(condition(first, "ControlPlaneHealthy")?.status, "Unknown");
    assert.deepEqual(first.status?.accessProviders, [{ name: "flotilla", cluster: { server: `${MEMBER_API}/clusters/member1`, "certificate-authority-data": Buffer.from(CA_PEM).toString("base64") } }]);
    assert.deepEqual(
      (first.status?.properties ?? []).map((p) => `${p.name}=${p.value}`),
      ["cluster.clusterset.k8s.io=member1", "provider.flotilla.dev=aws", "topology.kubernetes.io/region=eu-west-1", "topology.kubernetes.io/zone=eu-west-1a"],
    );

    await setStatus("member1", readyStatus("v1.35.0", "True"));
    const joined = await eventually("member1 Joined and healthy", () => get("member1"), (p) => condition(p, "Joined")?.status === "True" && condition(p, "ControlPlaneHealthy")?.status === "True", 20_000);
    assert.equal(joined.status?.version?.kubernetes, "v1.35.0");

    // Another writer's property beside Flotilla's (server-side apply: it stays through Flotilla's writes).
    await rest.apply(`${profilePath("member1")}/status`, { apiVersion: "multicluster.x-k8s.io/v1alpha1", kind: "ClusterProfile", metadata: { name: "member1", namespace: NS }, status: { properties: [{ name: "gpu.example.com/count", value: "8" }] } }, "gpu-reporter");
    const withGpu = await eventually("the other writer's property", () => get("member1"), (p) => property(p, "gpu.example.com/count") === "8");

    // A heartbeat alone (lastHeartbeatTime) changes nothing Flotilla publishes: no write.
    await setStatus("member1", { lastHeartbeatTime: new Date(Date.now() + 1000).toISOString().replace(/\.\d+Z$/, "Z") });
    await sleep(1500);
    assert.equal((await get("member1"))?.metadata.resourceVersion, withGpu.metadata.resourceVersion, "no write for a heartbeat");

    await setStatus("member1", readyStatus("v1.36.0", "False"));
    await rest.mergePatch(clusterPath("member1"), { spec: { zone: null } });
    const changed = await eventually("member1 NotReady on v1.36.0, without a zone", () => get("member1"), (p) => p.status?.version?.kubernetes === "v1.36.0" && condition(p, "ControlPlaneHealthy")?.status === "False" && property(p, "topology.kubernetes.io/zone") === undefined);
    assert.equal(condition(changed, "ControlPlaneHealthy")?.reason, "ClusterNotReachable");
    assert.equal(property(changed, "gpu.example.com/count"), "8", "the other writer's property stays");
    assert.equal(property(changed, "topology.kubernetes.io/region"), "eu-west-1");
  });

  it("removes the flotilla access provider when the member API is off, and only that", async () => {
    await rest.apply(`${profilePath("member1")}/status`, { apiVersion: "multicluster.x-k8s.io/v1alpha1", kind: "ClusterProfile", metadata: { name: "member1", namespace: NS }, status: { accessProviders: [{ name: "secretreader", cluster: { server: "https://direct:6443" } }] } }, "other-provider");
    await stop(part);
    part = await lead(ctx, { memberApi: false });
    const off = await eventually("no flotilla provider", () => get("member1"), (p) => !(p.status?.accessProviders ?? []).some((a) => a.name === "flotilla"), 20_000);
    assert.deepEqual(off.status?.accessProviders, [{ name: "secretreader", cluster: { server: "https://direct:6443" } }]);
    await stop(part);
    part = await lead(ctx);
    await eventually("the flotilla provider back", () => get("member1"), (p) => (p.status?.accessProviders ?? []).some((a) => a.name === "flotilla"), 20_000);
  });

  it("says Unjoining while the Cluster is deleted, and deletes the profile once the Cluster is gone", async () => {
    await rest.mergePatch(clusterPath("member1"), { metadata: { finalizers: ["example.com/hold"] } });
    await rest.delete(clusterPath("member1"));
    await eventually("Joined False, Unjoining", () => get("member1"), (p) => condition(p, "Joined")?.reason === "Unjoining", 20_000);
    await rest.mergePatch(clusterPath("member1"), { metadata: { finalizers: null } });
    await eventually("member1's profile gone", () => get("member1").then((p) => (p === undefined ? "gone" : undefined)), () => true, 20_000);
  });

  it("a new leader deletes Flotilla's profile of a Cluster that went meanwhile, and never touches another manager's", async () => {
    await stop(part);
    // While no replica leads: a profile of Flotilla's whose Cluster is gone, another manager's
    // profile of no Cluster, and another manager's profile of a Cluster's name.
    const ours = { apiVersion: "multicluster.x-k8s.io/v1alpha1", kind: "ClusterProfile", metadata: { name: "gone", namespace: NS, labels: { "x-k8s.io/cluster-manager": "flotilla" } }, spec: { displayName: "gone", clusterManager: { name: "flotilla" } } };
    for (const p of [ours, foreignProfile("ocm-only"), foreignProfile("shared-name")]) await rest.request("POST", `/apis/multicluster.x-k8s.io/v1alpha1/namespaces/${NS}/clusterprofiles`, { body: p });
    await rest.request("POST", "/apis/flotilla.dev/v1alpha1/clusters", { body: { apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name: "shared-name" }, spec: {} } });
    // Leading, but not serving yet (the member API's URL unsettled): nothing is decided.
    part = await lead(ctx, { serve: false });
    await sleep(1000);
    assert.ok((await get("gone")) !== undefined, "nothing done before the process serves");
    await part.serve?.();
    await eventually("the orphaned profile gone", () => get("gone").then((p) => (p === undefined ? "gone" : undefined)), () => true, 20_000);
  });

  it("never touches another cluster manager's profiles, and tells the Cluster whose name one holds", async () => {
    for (const name of ["ocm-only", "shared-name"]) {
      const p = await get(name);
      assert.ok(p !== undefined, `${name} is still there`);
      assert.deepEqual(p.metadata.labels, { "x-k8s.io/cluster-manager": "open-cluster-management" });
      assert.deepEqual(p.spec, { displayName: `ocm ${name}`, clusterManager: { name: "open-cluster-management" } });
      assert.equal(p.status, undefined, `${name}: no status written`);
      assert.ok(!(p.metadata as { managedFields?: { manager: string }[] }).managedFields?.some((m) => m.manager === "flotilla-cluster-profiles"), `${name}: never written by Flotilla`);
    }
    interface Ev {
      reason: string;
      type: string;
      message: string;
      involvedObject: { kind: string; name: string };
    }
    const events = await eventually("a Warning Event on the Cluster", () => rest.get<{ items: Ev[] }>("/api/v1/namespaces/default/events").then((l) => l.items.filter((e) => e.reason === "ClusterProfileConflict")), (l) => l.length > 0, 20_000);
    assert.deepEqual([events[0]?.type, events[0]?.involvedObject.kind, events[0]?.involvedObject.name], ["Warning", "Cluster", "shared-name"]);
    assert.match(events[0]?.message ?? "", /open-cluster-management's, not Flotilla's/);
    // Its Cluster deleted: the other manager's profile still stays.
    await rest.delete(clusterPath("shared-name"));
    await sleep(1500);
    assert.ok((await get("shared-name")) !== undefined, "another manager's profile outlives the Cluster");
  });
});
