import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { importIps, importStatus, ipsDiffer, type ServiceImportObject } from "./import-fields.ts";
import type { ServiceObject } from "./export-report.ts";

const imp = (spec: ServiceImportObject["spec"], status?: ServiceImportObject["status"]): ServiceImportObject => ({ apiVersion: "multicluster.x-k8s.io/v1beta1", kind: "ServiceImport", metadata: { name: "web", namespace: "shop" }, spec, ...(status === undefined ? {} : { status }) });
const OURS = { "flotilla.dev/mcs-import": "true", "multicluster.kubernetes.io/service-name": "web" };
const derived = (spec: ServiceObject["spec"], labels: Record<string, string> = OURS): ServiceObject => ({ apiVersion: "v1", kind: "Service", metadata: { name: "clusterset-web", namespace: "shop", labels }, spec });

describe("importIps: a ClusterSetIP import carries its derived Service's IPs, in family order", () => {
  it("single stack", () => assert.deepEqual(importIps(imp({ type: "ClusterSetIP" }), derived({ clusterIP: "10.0.0.5", clusterIPs: ["10.0.0.5"], ipFamilies: ["IPv4"] })), { ips: ["10.0.0.5"], ipFamilies: ["IPv4"] }));
  it("dual stack", () => assert.deepEqual(importIps(imp({ type: "ClusterSetIP" }), derived({ clusterIPs: ["10.0.0.5", "fd00::5"], ipFamilies: ["IPv4", "IPv6"] })), { ips: ["10.0.0.5", "fd00::5"], ipFamilies: ["IPv4", "IPv6"] }));
  it("a user's Service that holds the derived name: none (its IP is never the import's)", () => {
    assert.equal(importIps(imp({ type: "ClusterSetIP" }), derived({ clusterIPs: ["10.0.0.5"], ipFamilies: ["IPv4"] }, {})), undefined);
    assert.equal(importIps(imp({ type: "ClusterSetIP" }), derived({ clusterIPs: ["10.0.0.5"], ipFamilies: ["IPv4"] }, { ...OURS, "multicluster.kubernetes.io/service-name": "other" })), undefined);
  });
  it("Headless: none", () => assert.equal(importIps(imp({ type: "Headless" }), derived({ clusterIP: "None", clusterIPs: ["None"], ipFamilies: ["IPv4"] })), undefined));
  it("no derived Service yet, or no IP allocated: none", () => {
    assert.equal(importIps(imp({ type: "ClusterSetIP" }), undefined), undefined);
    assert.equal(importIps(imp({ type: "ClusterSetIP" }), derived({})), undefined);
  });
  it("ipsDiffer", () => {
    assert.equal(ipsDiffer(imp({ ips: ["10.0.0.5"], ipFamilies: ["IPv4"] }), { ips: ["10.0.0.5"], ipFamilies: ["IPv4"] }), false);
    assert.equal(ipsDiffer(imp({}), { ips: ["10.0.0.5"], ipFamilies: ["IPv4"] }), true);
  });
});

describe("importStatus: the exporting clusters, Ready, and the slices present", () => {
  const now = "2026-11-30T12:00:00Z";
  it("a fresh import: written", () => {
    const s = importStatus(imp({}), { clusters: ["a", "b"] }, now);
    assert.deepEqual(s?.clusters, [{ cluster: "a" }, { cluster: "b" }]);
    assert.equal(s?.endpointSliceObjects, "Present");
    assert.equal(s?.conditions?.[0]?.reason, "Ready");
  });
  it("already so: nothing to write", () => {
    const once = importStatus(imp({}), { clusters: ["a"] }, now);
    assert.equal(importStatus(imp({}, once), { clusters: ["a"] }, "later"), undefined);
  });
  it("a cluster more: written, Ready keeps its time", () => {
    const once = importStatus(imp({}), { clusters: ["a"] }, now);
    const twice = importStatus(imp({}, once), { clusters: ["a", "b"] }, "later");
    assert.deepEqual(twice?.clusters, [{ cluster: "a" }, { cluster: "b" }]);
    assert.equal(twice?.conditions?.[0]?.lastTransitionTime, now);
  });
});
