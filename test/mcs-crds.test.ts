// The MCS CRDs (issue 40) on real apiservers: a fresh one gets ServiceExport, ServiceImport and
// ClusterProperty, and an object made as v1alpha1 reads back as v1beta1; one where Karmada's chart
// installed its v1alpha1-only, unlabelled ServiceExport CRD gets ours over it, the object stored in
// it surviving; a CRD of a newer mcs-api release is never replaced; and the ClusterProperty naming
// the cluster is written, but never over another id. And the control plane's record of a member's
// export (MemberServiceExport) holds every field of its TypeScript shape, within its bounds.
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { applyClusterProperties, CLUSTER_ID_PROPERTY, CLUSTERSET_PROPERTY, installMcsCrds } from "../shared/mcs-crd-install.ts";
import { MCS_RELEASE_LABEL, MCS_REVISION_LABEL } from "../shared/mcs-crd-decision.ts";
import { CLUSTER_PROPERTIES_CRD, SERVICE_EXPORTS_CRD, SERVICE_IMPORTS_CRD } from "../shared/mcs-crds.ts";
import { KubeRest } from "../shared/kube-rest.ts";
import { loadCrds } from "../control-plane/crd-install/crds.ts";
import type { MemberServiceExportSpec } from "../shared/api/mcs.ts";
import { type Cluster, startCluster } from "./env/cluster.ts";

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const exportsPath = (version: string, name = "") => `/apis/multicluster.x-k8s.io/${version}/namespaces/default/serviceexports${name === "" ? "" : `/${name}`}`;
const importsPath = (version: string, name = "") => `/apis/multicluster.x-k8s.io/${version}/namespaces/default/serviceimports${name === "" ? "" : `/${name}`}`;
const propertyPath = (name: string) => `/apis/about.k8s.io/v1alpha1/clusterproperties/${name}`;

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; uid?: string; resourceVersion?: string; labels?: Record<string, string>; managedFields?: { manager: string }[] };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}
interface CrdObj extends Obj {
  spec: { versions: { name: string; served: boolean; storage: boolean }[] };
  status: { storedVersions: string[]; conditions?: { type: string; status: string }[] };
}

const log = { info: () => undefined, warn: (obj: object, msg: string) => warnings.push({ ...obj, msg }) };
const warnings: object[] = [];

/** Karmada's chart's ServiceExport CRD as a test needs it: v1alpha1 alone, stored, no labels (mcs-api v0.1.0's shape). */
const karmadaServiceExportCrd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: SERVICE_EXPORTS_CRD },
  spec: {
    group: "multicluster.x-k8s.io",
    names: { kind: "ServiceExport", listKind: "ServiceExportList", plural: "serviceexports", singular: "serviceexport" },
    scope: "Namespaced",
    versions: [
      {
        name: "v1alpha1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object" }, status: { type: "object", properties: { conditions: { type: "array", items: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } } } } } },
      },
    ],
  },
};

/** A ServiceImport CRD of a newer mcs-api release (v0.9.0 revision 0) than ours. */
const newerServiceImportCrd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: SERVICE_IMPORTS_CRD, labels: { [MCS_RELEASE_LABEL]: "v0.9.0", [MCS_REVISION_LABEL]: "0" } },
  spec: {
    group: "multicluster.x-k8s.io",
    names: { kind: "ServiceImport", listKind: "ServiceImportList", plural: "serviceimports", singular: "serviceimport" },
    scope: "Namespaced",
    versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
  },
};

async function established(rest: KubeRest, name: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const crd = await rest.get<CrdObj>(`${CRDS}/${name}`);
    if (crd.status.conditions?.some((c) => c.type === "Established" && c.status === "True")) return;
    await sleep(100);
  }
  throw new Error(`${name} never Established`);
}

describe("MCS CRDs in a member", () => {
  let fresh: Cluster;
  let used: Cluster;
  let rest: KubeRest;
  let usedRest: KubeRest;
  before(async () => {
    [fresh, used] = await Promise.all([
      startCluster({ name: "fresh", role: "control", dir: join(tmpdir(), `flotilla-mcs-crds-fresh-${process.pid}`) }),
      startCluster({ name: "used", role: "control", dir: join(tmpdir(), `flotilla-mcs-crds-used-${process.pid}`) }),
    ]);
    rest = new KubeRest(fresh.kubeConfig());
    usedRest = new KubeRest(used.kubeConfig());
  });
  after(async () => {
    rest?.close();
    usedRest?.close();
    await Promise.all([fresh?.stop(), used?.stop()]);
  });

  it("a fresh apiserver gets every CRD, and an object made as v1alpha1 reads back as v1beta1", async () => {
    const results = await installMcsCrds(rest, log);
    assert.deepEqual(results.map((r) => [r.crd, r.action]), [[CLUSTER_PROPERTIES_CRD, "create"], [SERVICE_EXPORTS_CRD, "create"], [SERVICE_IMPORTS_CRD, "create"]]);
    const crd = await rest.get<CrdObj>(`${CRDS}/${SERVICE_EXPORTS_CRD}`);
    assert.deepEqual(crd.spec.versions.map((v) => [v.name, v.served, v.storage]), [["v1alpha1", true, false], ["v1beta1", true, true]]);
    assert.equal(crd.metadata.labels?.[MCS_RELEASE_LABEL], "v0.5.2");

    await rest.request("POST", exportsPath("v1alpha1"), { body: { apiVersion: "multicluster.x-k8s.io/v1alpha1", kind: "ServiceExport", metadata: { name: "web" }, spec: { exportedLabels: { tier: "front" } } } });
    const read = await rest.get<Obj>(exportsPath("v1beta1", "web"));
    assert.equal(read.apiVersion, "multicluster.x-k8s.io/v1beta1");
    assert.deepEqual(read.spec, { exportedLabels: { tier: "front" } });
    const imp = { apiVersion: "multicluster.x-k8s.io/v1alpha1", kind: "ServiceImport", metadata: { name: "web" }, spec: { type: "ClusterSetIP", ports: [{ port: 80, protocol: "TCP" }], ips: ["10.0.0.9"] } };
    await rest.request("POST", importsPath("v1alpha1"), { body: imp });
    assert.deepEqual((await rest.get<Obj>(importsPath("v1beta1", "web"))).spec, imp.spec);
    // The schema is upstream's: a third IP, or a type it does not know, is refused.
    await assert.rejects(rest.request("POST", importsPath("v1beta1"), { body: { ...imp, apiVersion: "multicluster.x-k8s.io/v1beta1", metadata: { name: "bad" }, spec: { ...imp.spec, type: "LoadBalancer" } } }), /Unsupported value: "LoadBalancer"/);

    // A second install keeps what it made, writing nothing.
    const before = (await rest.get<CrdObj>(`${CRDS}/${SERVICE_IMPORTS_CRD}`)).metadata.resourceVersion;
    const again = await installMcsCrds(rest, log);
    assert.deepEqual(again.map((r) => r.action), ["keep", "keep", "keep"]);
    assert.equal((await rest.get<CrdObj>(`${CRDS}/${SERVICE_IMPORTS_CRD}`)).metadata.resourceVersion, before);
  });

  it("the ClusterProperties name the cluster and its clusterset; another clusterset's membership already there is kept", async () => {
    const results = await applyClusterProperties(rest, { clusterName: "member1", clustersetName: "fleet" });
    assert.deepEqual(results.map((r) => [r.name, r.outcome]), [[CLUSTER_ID_PROPERTY, "created"], [CLUSTERSET_PROPERTY, "created"]]);
    assert.equal((await rest.get<Obj>(propertyPath(CLUSTER_ID_PROPERTY))).spec?.value, "member1");
    assert.equal((await rest.get<Obj>(propertyPath(CLUSTERSET_PROPERTY))).spec?.value, "fleet");
    const same = await applyClusterProperties(rest, { clusterName: "member1", clustersetName: "fleet" });
    assert.deepEqual(same.map((r) => r.outcome), ["unchanged", "unchanged"]);
    // Another MCS implementation (or another fleet) recorded its clusterset first: never overwritten.
    const again = await applyClusterProperties(rest, { clusterName: "member1", clustersetName: "fleet2" });
    assert.deepEqual(again.map((r) => r.outcome), ["unchanged", "kept"]);
    assert.equal((await rest.get<Obj>(propertyPath(CLUSTERSET_PROPERTY))).spec?.value, "fleet");
  });

  it("Karmada's v1alpha1-only ServiceExport CRD is upgraded, its object surviving and read as v1beta1; a newer ServiceImport CRD is kept untouched", async () => {
    await usedRest.request("POST", CRDS, { body: karmadaServiceExportCrd, query: { fieldManager: "helm" } });
    await usedRest.request("POST", CRDS, { body: newerServiceImportCrd, query: { fieldManager: "helm" } });
    await Promise.all([established(usedRest, SERVICE_EXPORTS_CRD), established(usedRest, SERVICE_IMPORTS_CRD)]);
    const stored = await usedRest.request<Obj>("POST", exportsPath("v1alpha1"), { body: { apiVersion: "multicluster.x-k8s.io/v1alpha1", kind: "ServiceExport", metadata: { name: "karmada-made" } } });
    const newer = await usedRest.get<CrdObj>(`${CRDS}/${SERVICE_IMPORTS_CRD}`);

    warnings.length = 0;
    const results = await installMcsCrds(usedRest, log);
    assert.deepEqual(results.map((r) => [r.crd, r.action]), [[CLUSTER_PROPERTIES_CRD, "create"], [SERVICE_EXPORTS_CRD, "upgrade"], [SERVICE_IMPORTS_CRD, "keep"]]);
    assert.match(results[2]?.reason ?? "", /a newer serviceimports.multicluster.x-k8s.io is served \(release v0.9.0/);
    assert.equal(warnings.length, 1, JSON.stringify(warnings));

    const upgraded = await usedRest.get<CrdObj>(`${CRDS}/${SERVICE_EXPORTS_CRD}`);
    assert.deepEqual(upgraded.spec.versions.map((v) => [v.name, v.served, v.storage]), [["v1alpha1", true, false], ["v1beta1", true, true]]);
    assert.deepEqual(upgraded.status.storedVersions, ["v1alpha1", "v1beta1"]);
    assert.equal(upgraded.metadata.labels?.[MCS_RELEASE_LABEL], "v0.5.2");
    const survived = await usedRest.get<Obj>(exportsPath("v1beta1", "karmada-made"));
    assert.equal(survived.apiVersion, "multicluster.x-k8s.io/v1beta1");
    assert.equal(survived.metadata.uid, stored.metadata.uid);
    // The new fields are there now: an export made as v1alpha1 keeps its exportedLabels.
    await usedRest.request("POST", exportsPath("v1alpha1"), { body: { apiVersion: "multicluster.x-k8s.io/v1alpha1", kind: "ServiceExport", metadata: { name: "labelled" }, spec: { exportedLabels: { a: "b" } } } });
    assert.deepEqual((await usedRest.get<Obj>(exportsPath("v1beta1", "labelled"))).spec, { exportedLabels: { a: "b" } });

    const kept = await usedRest.get<CrdObj>(`${CRDS}/${SERVICE_IMPORTS_CRD}`);
    assert.equal(kept.metadata.resourceVersion, newer.metadata.resourceVersion, "the newer CRD is not written");
    assert.deepEqual(kept.spec.versions.map((v) => v.name), ["v1"]);
  });

  it("a cluster id another tool set is kept, and reported", async () => {
    await usedRest.request("POST", "/apis/about.k8s.io/v1alpha1/clusterproperties", { body: { apiVersion: "about.k8s.io/v1alpha1", kind: "ClusterProperty", metadata: { name: CLUSTER_ID_PROPERTY }, spec: { value: "east-1" } } });
    warnings.length = 0;
    const results = await applyClusterProperties(usedRest, { clusterName: "member2", clustersetName: "fleet", log });
    assert.deepEqual(results[0], { name: CLUSTER_ID_PROPERTY, value: "member2", outcome: "kept", served: "east-1" });
    assert.equal((await usedRest.get<Obj>(propertyPath(CLUSTER_ID_PROPERTY))).spec?.value, "east-1");
    assert.equal((await usedRest.get<Obj>(propertyPath(CLUSTERSET_PROPERTY))).spec?.value, "fleet");
    assert.equal(warnings.length, 1);
  });

  it("a MemberServiceExport keeps every field of MemberServiceExportSpec, and one over its bounds is refused", async () => {
    const crd = (await loadCrds()).find((c) => c.metadata.name === "memberserviceexports.flotilla.dev");
    assert.ok(crd);
    await rest.apply(`${CRDS}/memberserviceexports.flotilla.dev`, crd, "flotilla-control-plane", true);
    await established(rest, "memberserviceexports.flotilla.dev");
    // Every field the shape has: a field the schema lacked would be pruned, and the read-back differ.
    const spec: Required<MemberServiceExportSpec> = {
      cluster: "member1",
      namespace: "shop",
      name: "web",
      exportCreationTimestamp: "2026-11-30T10:00:00Z",
      exportUid: "6f1c6a2e-0000-4000-8000-000000000001",
      type: "ClusterSetIP",
      ports: [{ name: "http", protocol: "TCP", appProtocol: "http", port: 80 }],
      sessionAffinity: "ClientIP",
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 600 } },
      internalTrafficPolicy: "Cluster",
      trafficDistribution: "PreferClose",
      ipFamilies: ["IPv4"],
      exportedLabels: { tier: "front" },
      exportedAnnotations: { note: "x" },
      endpointSlices: [{ name: "web-abcde", addressType: "IPv4", ports: [{ name: "http", protocol: "TCP", port: 8080 }], endpoints: [{ addresses: ["10.1.0.5"], conditions: { ready: true, serving: true, terminating: false }, hostname: "web-0", zone: "a" }] }],
    };
    const path = "/apis/flotilla.dev/v1alpha1/memberserviceexports";
    const body = (name: string, s: object) => ({ apiVersion: "flotilla.dev/v1alpha1", kind: "MemberServiceExport", metadata: { name }, spec: s });
    await rest.request("POST", path, { body: body("member1.shop.web", spec) });
    assert.deepEqual((await rest.get<Obj>(`${path}/member1.shop.web`)).spec, spec);
    const { endpointSlices: _e, ...withoutSlices } = spec;
    await assert.rejects(rest.request("POST", path, { body: body("no-slices", withoutSlices) }), /spec.endpointSlices: Required value/);
    const manyPorts = Array.from({ length: 101 }, (_, i) => ({ port: 1000 + i }));
    await assert.rejects(rest.request("POST", path, { body: body("many-ports", { ...spec, ports: manyPorts }) }), /spec.ports: Too many: 101: must have at most 100 items/);
    const manyEndpoints = Array.from({ length: 1001 }, (_, i) => ({ addresses: [`10.2.${Math.floor(i / 250)}.${i % 250}`] }));
    await assert.rejects(rest.request("POST", path, { body: body("many-endpoints", { ...spec, endpointSlices: [{ ...spec.endpointSlices[0], endpoints: manyEndpoints }] }) }), /endpoints: Too many: 1001/);
  });
});
