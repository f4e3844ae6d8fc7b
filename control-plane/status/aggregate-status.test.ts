import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AggregatedStatusItem } from "../../shared/api/types.ts";
import { Health, type ManifestStatus, type WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { aggregateStatus, MAX_ENTRY_STATUS_BYTES } from "./aggregate-status.ts";

const report = (over: Partial<WorkStatus> = {}): WorkStatus => ({
  workKey: "apps/v1/Deployment/default/web",
  observedHash: "h1",
  applied: true,
  available: true,
  reason: "",
  message: "",
  manifests: [{ resource: undefined, applied: true, health: Health.HEALTH_HEALTHY, reason: "", message: "", status: Buffer.from('{"readyReplicas":2}') }],
  deleted: false,
  ...over,
});

const base = {
  targets: ["m1", "m2"],
  reports: new Map<string, WorkStatus>(),
  persisted: [] as AggregatedStatusItem[],
  existingClusters: new Set(["m1", "m2", "m3"]),
  notReady: new Set<string>(),
  deleting: false,
};

describe("aggregateStatus", () => {
  it("turns reports into items with health and the member's status", () => {
    const items = aggregateStatus({ ...base, reports: new Map([["m1", report()]]) });
    assert.deepEqual(items, [{ clusterName: "m1", applied: true, health: "Healthy", reason: "", observedHash: "h1", status: { readyReplicas: 2 } }]);
  });

  it("bounds one cluster's share of the binding: an object status past the limit is left out, and says so", () => {
    const huge = Buffer.from(JSON.stringify({ readyReplicas: 2, junk: "x".repeat(MAX_ENTRY_STATUS_BYTES) }));
    const [item] = aggregateStatus({ ...base, reports: new Map([["m1", report({ manifests: [{ resource: undefined, applied: true, health: Health.HEALTH_HEALTHY, reason: "", message: "", status: huge }] })]]) });
    assert.equal(item?.status, undefined);
    assert.match(item?.message ?? "", new RegExp(`status \\(${huge.byteLength} bytes\\) is left out`));
    assert.ok(JSON.stringify(item).length < 2 * 1024, "the entry stays small");
  });

  it("keeps a persisted item for a target until its agent reports again (control-plane restart)", () => {
    const persisted: AggregatedStatusItem[] = [{ clusterName: "m2", applied: true, health: "Healthy", reason: "", observedHash: "h1" }];
    assert.deepEqual(aggregateStatus({ ...base, persisted }).map((i) => i.clusterName), ["m2"]);
  });

  it("says ClusterNotReady for a target whose cluster is not ready, keeping its last report", () => {
    const [item] = aggregateStatus({ ...base, reports: new Map([["m1", report()]]), notReady: new Set(["m1"]) });
    assert.equal(item?.reason, "ClusterNotReady");
    assert.deepEqual(item?.status, { readyReplicas: 2 });
  });

  it("shows WaitingForRemoval for a cluster that still holds it, until the agent confirms", () => {
    const waiting = aggregateStatus({ ...base, targets: ["m1"], reports: new Map([["m2", report()]]) });
    assert.deepEqual(waiting.find((i) => i.clusterName === "m2")?.reason, "WaitingForRemoval");
    const confirmed = aggregateStatus({ ...base, targets: ["m1"], reports: new Map([["m2", report({ deleted: true })]]) });
    assert.equal(confirmed.find((i) => i.clusterName === "m2"), undefined);
  });

  it("waits for every cluster when the binding is being deleted", () => {
    const items = aggregateStatus({ ...base, deleting: true, reports: new Map([["m1", report()], ["m2", report({ deleted: true })]]) });
    assert.deepEqual(items.map((i) => `${i.clusterName}:${i.reason}`), ["m1:WaitingForRemoval"]);
  });

  it("shows why the agent has not removed it yet (a Namespace it keeps) while the binding waits", () => {
    const kept = report({ applied: false, reason: "DeletionFailed", message: "kept Namespace shop: it holds 1 object Flotilla does not manage (1 ConfigMap)" });
    const items = aggregateStatus({ ...base, deleting: true, reports: new Map([["m1", kept]]) });
    assert.deepEqual(items.map((i) => [i.reason, i.message]), [["WaitingForRemoval", "waiting for the agent to remove it: DeletionFailed: kept Namespace shop: it holds 1 object Flotilla does not manage (1 ConfigMap)"]]);
  });

  it("releases clusters that no longer exist (unjoined)", () => {
    assert.deepEqual(aggregateStatus({ ...base, existingClusters: new Set(["m2"]), reports: new Map([["m1", report()]]) }), []);
  });

  it("copies a Service's readyEndpoints into its entry, and nothing that is not a Service's", () => {
    const service = { group: "", version: "v1", kind: "Service", namespace: "default", name: "web" };
    const manifest = report().manifests[0] as ManifestStatus;
    const cases: { name: string; manifest: ManifestStatus; want: number | undefined }[] = [
      { name: "a Service with ready endpoints", manifest: { ...manifest, resource: service, readyEndpoints: 2 }, want: 2 },
      { name: "a Service with none ready", manifest: { ...manifest, resource: service, readyEndpoints: 0 }, want: 0 },
      { name: "a Service the agent did not count", manifest: { ...manifest, resource: service }, want: undefined },
      { name: "a Service of another group", manifest: { ...manifest, resource: { ...service, group: "serving.knative.dev" }, readyEndpoints: 2 }, want: undefined },
      { name: "a Deployment", manifest: { ...manifest, resource: { ...service, group: "apps", kind: "Deployment" }, readyEndpoints: 2 }, want: undefined },
      { name: "no resource named", manifest: { ...manifest, readyEndpoints: 2 }, want: undefined },
    ];
    for (const c of cases) {
      const [item] = aggregateStatus({ ...base, reports: new Map([["m1", report({ manifests: [c.manifest] })]]) });
      assert.equal(item?.readyEndpoints, c.want, c.name);
      assert.equal("readyEndpoints" in (item ?? {}), c.want !== undefined, `${c.name}: the key is absent when not reported`);
    }
  });

  it("copies a workload's Unschedulable pods into its entry only when there are some", () => {
    const manifest = report().manifests[0] as ManifestStatus;
    const cases: { name: string; manifest: ManifestStatus; want: [number, string] | undefined }[] = [
      { name: "two Unschedulable", manifest: { ...manifest, unschedulableReplicas: 2, unschedulableSince: "2026-11-24T10:00:00Z" }, want: [2, "2026-11-24T10:00:00Z"] },
      { name: "none", manifest, want: undefined },
      { name: "0 said explicitly", manifest: { ...manifest, unschedulableReplicas: 0, unschedulableSince: "2026-11-24T10:00:00Z" }, want: undefined },
      { name: "a count without a time", manifest: { ...manifest, unschedulableReplicas: 2 }, want: undefined },
    ];
    for (const c of cases) {
      const [item] = aggregateStatus({ ...base, reports: new Map([["m1", report({ manifests: [c.manifest] })]]) });
      assert.deepEqual(item?.unschedulableReplicas === undefined ? undefined : [item.unschedulableReplicas, item.unschedulableSince], c.want, c.name);
      assert.equal("unschedulableSince" in (item ?? {}), c.want !== undefined, `${c.name}: the key is absent when not reported`);
    }
  });

  it("keeps the last readyEndpoints of a cluster that is not ready", () => {
    const service = { group: "", version: "v1", kind: "Service", namespace: "default", name: "web" };
    const manifests = [{ ...(report().manifests[0] as ManifestStatus), resource: service, readyEndpoints: 3 }];
    const [item] = aggregateStatus({ ...base, reports: new Map([["m1", report({ manifests })]]), notReady: new Set(["m1"]) });
    assert.deepEqual([item?.reason, item?.readyEndpoints], ["ClusterNotReady", 3]);
  });

  it("writes only the clusters this replica owns", () => {
    const items = aggregateStatus({ ...base, reports: new Map([["m1", report()], ["m2", report()]]), owned: new Set(["m2"]) });
    assert.deepEqual(items.map((i) => i.clusterName), ["m2"]);
  });
});
