import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type EndpointSliceObject, exportVerdict, isImportedSlice, type ServiceExportObject, type ServiceObject } from "./export-report.ts";

const exp: ServiceExportObject = { apiVersion: "multicluster.x-k8s.io/v1beta1", kind: "ServiceExport", metadata: { name: "web", namespace: "shop", uid: "u1", creationTimestamp: "2026-11-30T10:00:00Z" }, spec: { exportedLabels: { tier: "a" } } };
const svc = (spec: ServiceObject["spec"]): ServiceObject => ({ apiVersion: "v1", kind: "Service", metadata: { name: "web", namespace: "shop" }, spec });
const slice = (name: string, labels: Record<string, string> = {}): EndpointSliceObject => ({
  apiVersion: "discovery.k8s.io/v1",
  kind: "EndpointSlice",
  metadata: { name, namespace: "shop", labels: { "kubernetes.io/service-name": "web", ...labels } },
  addressType: "IPv4",
  ports: [{ name: "http", protocol: "TCP", port: 8080 }],
  endpoints: [{ addresses: ["10.244.0.7"], conditions: { ready: true } }, { addresses: [], conditions: { ready: true } }],
});

describe("exportVerdict: what the agent reports of a ServiceExport (KEP-1645's service types)", () => {
  const types: [string, ServiceObject["spec"], string][] = [
    ["ClusterIP", { type: "ClusterIP", clusterIP: "10.0.0.9" }, "ClusterSetIP"],
    ["NodePort", { type: "NodePort", clusterIP: "10.0.0.9" }, "ClusterSetIP"],
    ["LoadBalancer", { type: "LoadBalancer", clusterIP: "10.0.0.9" }, "ClusterSetIP"],
    ["headless (clusterIP None)", { type: "ClusterIP", clusterIP: "None" }, "Headless"],
  ];
  for (const [what, spec, type] of types) {
    it(`a ${what} Service exports as ${type}`, () => {
      const v = exportVerdict(exp, svc(spec), []);
      assert.ok(v.valid);
      assert.equal(v.spec.type, type);
    });
  }
  it("an ExternalName Service is not valid: InvalidServiceType", () => {
    const v = exportVerdict(exp, svc({ type: "ExternalName" }), []);
    assert.deepEqual(v.valid ? undefined : v.reason, "InvalidServiceType");
  });
  it("no Service of that name: NoService", () => {
    const v = exportVerdict(exp, undefined, []);
    assert.deepEqual(v.valid ? undefined : v.reason, "NoService");
  });
  it("carries the Service's ports (TCP by default), affinity only for ClientIP, the export's maps and its creation time", () => {
    const v = exportVerdict(exp, svc({ clusterIP: "10.0.0.9", ports: [{ name: "tcp", port: 42 }], sessionAffinity: "ClientIP", sessionAffinityConfig: { clientIP: { timeoutSeconds: 10 } }, internalTrafficPolicy: "Cluster", ipFamilies: ["IPv4"] }), []);
    assert.ok(v.valid);
    assert.deepEqual(v.spec.ports, [{ name: "tcp", protocol: "TCP", port: 42 }]);
    assert.deepEqual(v.spec.sessionAffinityConfig, { clientIP: { timeoutSeconds: 10 } });
    assert.equal(v.spec.exportCreationTimestamp, "2026-11-30T10:00:00Z");
    assert.deepEqual(v.spec.exportedLabels, { tier: "a" });
    const none = exportVerdict(exp, svc({ clusterIP: "10.0.0.9", sessionAffinity: "None", sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } } }), []);
    assert.ok(none.valid);
    assert.equal(none.spec.sessionAffinityConfig, undefined);
  });
  it("endpoints come from the Service's own slices, never from imported ones, and empty addresses are dropped", () => {
    const v = exportVerdict(exp, svc({ clusterIP: "10.0.0.9" }), [slice("web-b"), slice("web-a"), slice("imp", { "multicluster.kubernetes.io/source-cluster": "m2" }), slice("ours", { "endpointslice.kubernetes.io/managed-by": "mcs.flotilla.dev" })]);
    assert.ok(v.valid);
    assert.deepEqual(v.spec.endpointSlices.map((s) => s.name), ["web-a", "web-b"]);
    assert.deepEqual(v.spec.endpointSlices[0]?.endpoints, [{ addresses: ["10.244.0.7"], conditions: { ready: true } }]);
  });
  it("isImportedSlice: by the source-cluster label or Flotilla's managed-by", () => {
    assert.equal(isImportedSlice(slice("a")), false);
    assert.equal(isImportedSlice(slice("b", { "multicluster.kubernetes.io/source-cluster": "x" })), true);
  });
});
