// End to end (issue 40): SIG Multicluster's MCS API on real members. A ServiceExport made in a
// member is imported in every member where its namespace is (ServiceImport with its IP, the
// derived Service, one EndpointSlice per exporting cluster); a second export merges by KEP-1645's
// rules with Conflict on both; an agent killed while exporting withdraws nothing (its endpoints
// turn not ready and stay); an unexport removes the import from every member, and nothing else.
// The clusterset name resolves in member2's CoreDNS (docs/guides/mcs.md's stanza) to member2's IP
// of the import.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { join } from "node:path";
import { type ClustersetDns, startClustersetDns } from "../env/clusterset-dns.ts";
import { resolveAt } from "../env/dns-client.ts";
import { apply, eventually, getJson, kubectl, sleep } from "./helpers.ts";

const NS = "mcs-e2e";
/** A namespace only member1 has: member2 gets no import there, and no namespace. */
const SOLO = "mcs-e2e-solo";
/** A namespace where a user's own Service in member2 holds the derived Service's name. */
const TAKEN = "mcs-e2e-taken";

interface Condition {
  type: string;
  status: string;
  reason?: string;
}
interface ServiceImport {
  metadata: { uid: string; annotations?: Record<string, string> };
  spec: { type: string; ips?: string[]; ipFamilies?: string[]; ports: { name?: string; port: number; protocol?: string }[] };
  status?: { clusters?: { cluster: string }[]; conditions?: Condition[] };
}
interface Slice {
  metadata: { name: string; uid: string; labels: Record<string, string> };
  endpoints?: { addresses: string[]; conditions?: { ready?: boolean } }[];
}

const deployment = (namespace: string) =>
  JSON.stringify({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "hello", namespace },
    spec: { replicas: 2, selector: { matchLabels: { app: "hello" } }, template: { metadata: { labels: { app: "hello" } }, spec: { containers: [{ name: "c", image: "nginx", ports: [{ containerPort: 8080 }] }] } } },
  });
const service = (namespace: string, ports: { name: string; port: number; protocol?: string }[]) =>
  JSON.stringify({ apiVersion: "v1", kind: "Service", metadata: { name: "hello", namespace }, spec: { selector: { app: "hello" }, ports: ports.map((p) => ({ ...p, targetPort: 8080 })) } });
const serviceExport = (namespace: string) => JSON.stringify({ apiVersion: "multicluster.x-k8s.io/v1beta1", kind: "ServiceExport", metadata: { name: "hello", namespace } });

const condition = (o: { status?: { conditions?: Condition[] } } | undefined, type: string) => o?.status?.conditions?.find((c) => c.type === type);

describe("multi-cluster services (MCS API) on real members", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let m1: Cluster;
  let m2: Cluster;
  let dns: ClustersetDns | undefined;
  const imported = (m: Cluster, namespace = NS) => getJson<ServiceImport>(m, ["serviceimports.multicluster.x-k8s.io", "-n", namespace, "hello"]);
  const slices = async (m: Cluster) => (await getJson<{ items: Slice[] }>(m, ["endpointslices", "-n", NS, "-l", "multicluster.kubernetes.io/service-name=hello"]))?.items ?? [];
  const exportOf = (m: Cluster) => getJson<{ status?: { conditions?: Condition[] } }>(m, ["serviceexports.multicluster.x-k8s.io", "-n", NS, "hello"]);

  before(async () => {
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet);
    [m1, m2] = fleet.members as [Cluster, Cluster];
    for (const m of [m1, m2]) await kubectl(m, ["create", "namespace", NS]);
    await kubectl(m1, ["create", "namespace", SOLO]);
    for (const m of [m1, m2]) await kubectl(m, ["create", "namespace", TAKEN]);
  });
  after(async () => {
    await dns?.stop();
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("an export in member1 is imported in both members: the IP of a derived Service, member1's endpoints, Valid and Ready", async () => {
    await apply(m1, deployment(NS));
    await apply(m1, service(NS, [{ name: "tcp", port: 42 }]));
    await apply(m1, serviceExport(NS));
    for (const m of [m1, m2]) {
      const imp = await eventually(`the import in ${m.name}`, () => imported(m), (i) => (i.spec.ips?.length ?? 0) === 1 && i.status?.clusters !== undefined);
      assert.equal(imp.spec.type, "ClusterSetIP");
      assert.deepEqual(imp.spec.ports, [{ name: "tcp", port: 42, protocol: "TCP" }]);
      assert.deepEqual(imp.spec.ipFamilies, ["IPv4"]);
      assert.deepEqual(imp.status?.clusters, [{ cluster: "member1" }]);
      const derived = await getJson<{ spec: { clusterIP: string } }>(m, ["service", "-n", NS, "clusterset-hello"]);
      assert.equal(derived?.spec.clusterIP, imp.spec.ips?.[0]);
      const s = await eventually(`member1's endpoints in ${m.name}`, () => slices(m), (l) => l.some((x) => (x.endpoints ?? []).length === 2));
      const from1 = s.find((x) => x.metadata.labels["multicluster.kubernetes.io/source-cluster"] === "member1");
      assert.equal(from1?.metadata.labels["endpointslice.kubernetes.io/managed-by"], "mcs.flotilla.dev");
      assert.equal(from1?.metadata.labels["kubernetes.io/service-name"], "clusterset-hello");
    }
    const exp = await eventually("the export's conditions", () => exportOf(m1), (e) => condition(e, "Ready")?.status === "True");
    assert.equal(condition(exp, "Valid")?.status, "True");
    assert.equal(condition(exp, "Conflict")?.status, "False");
    // The clusterset name, in member2's CoreDNS: member2's IP of the import.
    dns = await startClustersetDns({ dir: join(fleet.root, "clusterset-dns-member2"), kubeconfigPath: m2.kubeconfigPath });
    const ip = (await imported(m2))?.spec.ips?.[0];
    assert.ok(ip !== undefined);
    const answer = await eventually("hello.mcs-e2e.svc.clusterset.local in member2", () => resolveAt(dns?.server ?? "", `hello.${NS}.svc.clusterset.local`, "A"), (a) => a.length > 0);
    assert.deepEqual(answer, [ip]);
  });

  it("an import goes only where its namespace is: member2 gets neither the import nor the namespace", async () => {
    await apply(m1, service(SOLO, [{ name: "tcp", port: 42 }]));
    await apply(m1, serviceExport(SOLO));
    await eventually("the import in member1", () => imported(m1, SOLO), () => true);
    await sleep(3000);
    assert.equal(await imported(m2, SOLO), undefined);
    assert.equal(await getJson(m2, ["namespace", SOLO]), undefined);
  });

  it("member2 exports it with one more port: the union, and Conflict on both exports; withdrawn, the Conflict clears and member2's endpoints leave", async () => {
    await apply(m2, deployment(NS));
    await apply(m2, service(NS, [{ name: "tcp", port: 42 }, { name: "udp", port: 53, protocol: "UDP" }]));
    await apply(m2, serviceExport(NS));
    for (const m of [m1, m2]) {
      const exp = await eventually(`Conflict on ${m.name}'s export`, () => exportOf(m), (e) => condition(e, "Conflict")?.status === "True");
      assert.equal(condition(exp, "Conflict")?.reason, "PortConflict");
    }
    const imp = await eventually("the union of the ports", () => imported(m1), (i) => i.spec.ports.length === 2);
    assert.deepEqual(
      imp.spec.ports.map((p) => p.name).sort(),
      ["tcp", "udp"],
    );
    await eventually("member2's endpoints in member1", () => slices(m1), (l) => l.some((x) => x.metadata.labels["multicluster.kubernetes.io/source-cluster"] === "member2"));
    await kubectl(m2, ["delete", "serviceexports.multicluster.x-k8s.io", "-n", NS, "hello"]);
    await eventually("member2's endpoints gone from member1", () => slices(m1), (l) => l.length > 0 && l.every((x) => x.metadata.labels["multicluster.kubernetes.io/source-cluster"] === "member1"));
    await eventually("the Conflict cleared on member1's export", () => exportOf(m1), (e) => condition(e, "Conflict")?.status === "False");
    assert.ok(await imported(m2), "member2 still imports member1's export");
  });

  it("member1's agent killed while exporting: the import stays everywhere, its endpoints turn not ready and stay; back, ready again", async () => {
    await flotilla.agents.get("member1")?.process.kill();
    const s = await eventually("member1's endpoints not ready in member2", () => slices(m2), (l) => l.some((x) => x.metadata.labels["multicluster.kubernetes.io/source-cluster"] === "member1" && (x.endpoints ?? []).length === 2 && (x.endpoints ?? []).every((e) => e.conditions?.ready === false)));
    assert.ok(s.length > 0);
    assert.ok(await imported(m2), "the import stays in member2");
    await flotilla.startAgent("member1");
    await eventually("member1's endpoints ready again in member2", () => slices(m2), (l) => l.some((x) => x.metadata.labels["multicluster.kubernetes.io/source-cluster"] === "member1" && (x.endpoints ?? []).some((e) => e.conditions?.ready === true)));
  });

  it("a user's Service holding the derived name in member2 is left alone: not taken over, its IP never the import's", async () => {
    const theirs = JSON.stringify({ apiVersion: "v1", kind: "Service", metadata: { name: "clusterset-hello", namespace: TAKEN, labels: { owner: "user" } }, spec: { selector: { app: "other" }, ports: [{ port: 9 }] } });
    await apply(m2, theirs);
    const before = await getJson<{ metadata: { uid: string; resourceVersion: string; labels: Record<string, string> }; spec: { clusterIP: string } }>(m2, ["service", "-n", TAKEN, "clusterset-hello"]);
    await apply(m1, service(TAKEN, [{ name: "tcp", port: 42 }]));
    await apply(m1, serviceExport(TAKEN));
    await eventually("the import in member1", () => imported(m1, TAKEN), (i) => (i.spec.ips?.length ?? 0) === 1);
    await eventually("the import in member2", () => imported(m2, TAKEN), () => true);
    await sleep(3000);
    const after = await getJson<typeof before>(m2, ["service", "-n", TAKEN, "clusterset-hello"]);
    assert.equal(after?.metadata.uid, before?.metadata.uid);
    assert.equal(after?.metadata.resourceVersion, before?.metadata.resourceVersion, "the user's Service is not written");
    assert.deepEqual(after?.metadata.labels, { owner: "user" });
    assert.deepEqual((await imported(m2, TAKEN))?.spec.ips ?? [], [], "the user's Service's IP is not the import's");
  });

  it("the control plane and member2's agent restarted: every import and slice stays the same object", async () => {
    const before = await imported(m2);
    const slicesBefore = (await slices(m2)).map((s) => s.metadata.uid).sort();
    assert.ok(before !== undefined && slicesBefore.length > 0);
    await flotilla.stopControlPlane();
    await flotilla.startControlPlane();
    await flotilla.stopAgent("member2");
    await flotilla.startAgent("member2");
    // Time for both resyncs to act, were they to remove anything.
    await sleep(5000);
    assert.equal((await imported(m2))?.metadata.uid, before.metadata.uid);
    assert.deepEqual((await slices(m2)).map((s) => s.metadata.uid).sort(), slicesBefore);
    await eventually("member1's export still Ready", () => exportOf(m1), (e) => condition(e, "Ready")?.status === "True");
  });

  it("unexported everywhere: the import leaves every member with its derived Service and slices; the exported Service and its pods stay", async () => {
    await kubectl(m1, ["delete", "serviceexports.multicluster.x-k8s.io", "-n", NS, "hello"]);
    for (const m of [m1, m2]) {
      await eventually(`the import gone from ${m.name}`, async () => ((await imported(m)) === undefined ? true : undefined), () => true);
      await eventually(`the slices gone from ${m.name}`, async () => ((await slices(m)).length === 0 ? true : undefined), () => true);
      assert.equal(await getJson(m, ["service", "-n", NS, "clusterset-hello"]), undefined);
    }
    assert.ok(await getJson(m1, ["service", "-n", NS, "hello"]), "the exported Service stays");
    assert.ok(await getJson(m1, ["deployment", "-n", NS, "hello"]), "its Deployment stays");
  });
});
