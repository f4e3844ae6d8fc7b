import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ClustersetStatus, ExportedEndpoint, MemberServiceExportSpec } from "../../shared/api/mcs.ts";
import type { KubeObject } from "../../shared/api/types.ts";
import { exportOf, sliceOf } from "./exports.fixtures.ts";
import { importManifests } from "./import-manifests.ts";
import { mergeExports } from "./merge.ts";

const NONE = new Set<string>();

function manifests(exports: MemberServiceExportSpec[], cluster: string, notReady: ReadonlySet<string> = NONE): { imp: KubeObject; svc: KubeObject; slices: KubeObject[] } {
  const merged = mergeExports(exports);
  assert.ok(merged !== undefined);
  const [imp, svc, ...slices] = importManifests(merged, cluster, notReady);
  assert.ok(imp !== undefined && svc !== undefined);
  return { imp, svc, slices };
}

const statusOf = (imp: KubeObject): ClustersetStatus => JSON.parse(imp.metadata.annotations?.["flotilla.dev/clusterset-status"] ?? "null") as ClustersetStatus;
const endpointsOf = (slice: KubeObject) => slice.endpoints as ExportedEndpoint[];

describe("importManifests: the ServiceImport", () => {
  it("the conformance hello Service: its type, ports and affinity; the exported labels and annotations; no ips", () => {
    const { imp } = manifests([exportOf("cluster-1", 0, { exportedLabels: { "dummy-label": "true" }, exportedAnnotations: { "dummy-annotation": "true" }, trafficDistribution: "PreferClose" })], "cluster-2");
    assert.deepEqual(imp, {
      apiVersion: "multicluster.x-k8s.io/v1beta1",
      kind: "ServiceImport",
      metadata: {
        name: "hello",
        namespace: "mcs-test",
        labels: { "dummy-label": "true", "flotilla.dev/mcs-import": "true" },
        annotations: {
          "dummy-annotation": "true",
          "flotilla.dev/create-namespace": "false",
          "multicluster.kubernetes.io/derived-service": "clusterset-hello",
          "flotilla.dev/clusterset-status": `{"clusters":["cluster-1"]}`,
        },
      },
      spec: {
        type: "ClusterSetIP",
        ports: [{ name: "tcp", protocol: "TCP", port: 42 }, { name: "udp", protocol: "UDP", port: 42 }],
        sessionAffinity: "ClientIP",
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 10 } },
        internalTrafficPolicy: "Cluster",
        trafficDistribution: "PreferClose",
      },
    });
  });

  const exports = [exportOf("cluster-1", 0), exportOf("cluster-2", 2, { type: "Headless" })];
  const cases: { name: string; cluster: string; want: ClustersetStatus }[] = [
    {
      name: "an exporter's import carries its export's Ready and Conflict",
      cluster: "cluster-2",
      want: {
        clusters: ["cluster-1", "cluster-2"],
        exportConditions: [
          { type: "Ready", status: "True", reason: "Ready", message: "The service is imported in the clusterset." },
          { type: "Conflict", status: "True", reason: "TypeConflict", message: `Conflicting type. Using "ClusterSetIP" from oldest service export in "cluster-1". 1/2 clusters disagree.` },
        ],
      },
    },
    { name: "a member that does not export gets the clusters only", cluster: "cluster-3", want: { clusters: ["cluster-1", "cluster-2"] } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(statusOf(manifests(exports, c.cluster).imp), c.want));

  it("an exported label never replaces Flotilla's own", () => {
    const { imp } = manifests([exportOf("cluster-1", 0, { exportedLabels: { "flotilla.dev/mcs-import": "no" } })], "cluster-1");
    assert.equal(imp.metadata.labels?.["flotilla.dev/mcs-import"], "true");
  });
});

describe("importManifests: the derived Service", () => {
  it("ClusterSetIP: selectorless, ClusterIP, PreferDualStack, the import's ports without targetPort and its affinity", () => {
    const { svc } = manifests([exportOf("cluster-1", 0)], "cluster-1");
    assert.deepEqual(svc, {
      apiVersion: "v1",
      kind: "Service",
      metadata: {
        name: "clusterset-hello",
        namespace: "mcs-test",
        labels: { "multicluster.kubernetes.io/service-name": "hello", "flotilla.dev/mcs-import": "true" },
        annotations: { "flotilla.dev/create-namespace": "false" },
      },
      spec: {
        type: "ClusterIP",
        ipFamilyPolicy: "PreferDualStack",
        ports: [{ name: "tcp", protocol: "TCP", port: 42 }, { name: "udp", protocol: "UDP", port: 42 }],
        sessionAffinity: "ClientIP",
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 10 } },
      },
    });
  });

  it("Headless: clusterIP None, no affinity", () => {
    const { imp, svc } = manifests([exportOf("cluster-1", 0, { type: "Headless", sessionAffinity: "None", sessionAffinityConfig: undefined })], "cluster-1");
    assert.deepEqual(svc.spec, { clusterIP: "None", ports: [{ name: "tcp", protocol: "TCP", port: 42 }, { name: "udp", protocol: "UDP", port: 42 }] });
    assert.equal((imp.spec as { type: string }).type, "Headless");
  });

  it("an unnamed port among several is named <protocol>-<port> in the Service and its slices, and stays unnamed in the import", () => {
    const unnamed = exportOf("cluster-1", 0, { ports: [{ protocol: "TCP", port: 80 }], endpointSlices: [{ ...sliceOf("s", ["10.0.0.1"]), ports: [{ protocol: "TCP", port: 8080 }] }] });
    const named = exportOf("cluster-2", 2, { ports: [{ name: "grpc", protocol: "TCP", port: 9090 }] });
    const { imp, svc, slices } = manifests([unnamed, named], "cluster-1");
    assert.deepEqual((imp.spec as { ports: unknown }).ports, [{ protocol: "TCP", port: 80 }, { name: "grpc", protocol: "TCP", port: 9090 }]);
    assert.deepEqual((svc.spec as { ports: unknown }).ports, [{ name: "tcp-80", protocol: "TCP", port: 80 }, { name: "grpc", protocol: "TCP", port: 9090 }]);
    const fromCluster1 = slices.find((s) => s.metadata.labels?.["multicluster.kubernetes.io/source-cluster"] === "cluster-1");
    assert.deepEqual(fromCluster1?.ports, [{ name: "tcp-80", protocol: "TCP", port: 8080 }]);
  });

  it("a 60-character service's Service is hashed, and the import names it", () => {
    const name = `svc-${"x".repeat(56)}`;
    const { imp, svc, slices } = manifests([exportOf("cluster-1", 0, { name })], "cluster-1");
    assert.match(svc.metadata.name ?? "", /^clusterset-[0-9a-f]{16}$/);
    assert.equal(imp.metadata.annotations?.["multicluster.kubernetes.io/derived-service"], svc.metadata.name);
    assert.equal(slices[0]?.metadata.labels?.["kubernetes.io/service-name"], svc.metadata.name);
    assert.equal(slices[0]?.metadata.labels?.["multicluster.kubernetes.io/service-name"], name);
  });
});

describe("importManifests: the imported EndpointSlices", () => {
  it("one per exporting cluster's slice, labelled for MCS, kube-proxy and CoreDNS, managed by Flotilla", () => {
    const { slices } = manifests([exportOf("cluster-1", 0), exportOf("cluster-2", 2)], "cluster-3");
    assert.equal(slices.length, 2);
    const s = slices.find((x) => x.metadata.labels?.["multicluster.kubernetes.io/source-cluster"] === "cluster-2");
    assert.match(s?.metadata.name ?? "", /^clusterset-hello-[0-9a-f]{10}$/);
    assert.deepEqual(s?.metadata.labels, {
      "multicluster.kubernetes.io/service-name": "hello",
      "multicluster.kubernetes.io/source-cluster": "cluster-2",
      "kubernetes.io/service-name": "clusterset-hello",
      "endpointslice.kubernetes.io/managed-by": "mcs.flotilla.dev",
      "flotilla.dev/mcs-import": "true",
    });
    assert.deepEqual(s?.metadata.annotations, { "flotilla.dev/create-namespace": "false" });
    assert.equal(s?.addressType, "IPv4");
    assert.deepEqual(endpointsOf(s as KubeObject), [{ addresses: ["10.244.0.5"], conditions: { ready: true, serving: true, terminating: false }, hostname: "hello-0", zone: "z1" }]);
  });

  it("fault: a not-ready cluster's endpoints are kept, marked not ready and not serving; the others' are untouched", () => {
    const { slices } = manifests([exportOf("cluster-1", 0), exportOf("cluster-2", 2, { endpointSlices: [sliceOf("a", ["10.1.0.1", "10.1.0.2"]), sliceOf("b", [])] })], "cluster-1", new Set(["cluster-2"]));
    const bySource = (c: string) => slices.filter((s) => s.metadata.labels?.["multicluster.kubernetes.io/source-cluster"] === c);
    assert.equal(bySource("cluster-2").length, 2, "an empty slice is kept too");
    const lost = bySource("cluster-2").flatMap(endpointsOf);
    assert.deepEqual(lost.map((e) => [e.addresses[0], e.conditions]), [
      ["10.1.0.1", { ready: false, serving: false, terminating: false }],
      ["10.1.0.2", { ready: false, serving: false, terminating: false }],
    ]);
    assert.deepEqual(bySource("cluster-1").flatMap(endpointsOf).map((e) => e.conditions), [{ ready: true, serving: true, terminating: false }]);
  });

  it("never a nodeName, whatever the report carries", () => {
    const slice = sliceOf("s", ["10.0.0.1"]);
    (slice.endpoints[0] as ExportedEndpoint & { nodeName?: string }).nodeName = "node-a";
    const { slices } = manifests([exportOf("cluster-1", 0, { endpointSlices: [slice] })], "cluster-1");
    assert.equal("nodeName" in (endpointsOf(slices[0] as KubeObject)[0] ?? {}), false);
  });

  it("a source slice past 1000 endpoints is cut into pieces of at most 1000, none lost", () => {
    const addresses = Array.from({ length: 2500 }, (_, i) => `10.2.${Math.floor(i / 250)}.${i % 250}`);
    const { slices } = manifests([exportOf("cluster-1", 0, { endpointSlices: [sliceOf("big", addresses)] })], "cluster-1");
    assert.deepEqual(slices.map((s) => endpointsOf(s).length).sort(), [1000, 1000, 500]);
    assert.equal(new Set(slices.flatMap((s) => endpointsOf(s).map((e) => e.addresses[0]))).size, 2500);
  });

  it("sorted by name, endpoints in one order whatever order they were reported in", () => {
    const a = manifests([exportOf("cluster-1", 0, { endpointSlices: [sliceOf("x", ["10.0.0.1", "10.0.0.2"]), sliceOf("y", ["10.0.0.3"])] })], "c").slices;
    const reported = sliceOf("x", ["10.0.0.2", "10.0.0.1"]);
    reported.endpoints = [...sliceOf("x", ["10.0.0.1", "10.0.0.2"]).endpoints].reverse();
    const b = manifests([exportOf("cluster-1", 0, { endpointSlices: [sliceOf("y", ["10.0.0.3"]), reported] })], "c").slices;
    assert.deepEqual(a, b);
    assert.deepEqual(a.map((s) => s.metadata.name), [...a.map((s) => s.metadata.name)].sort());
  });
});
