// Whether the cluster controller writes a Cluster's status: pure.
import type { ClusterStatus } from "../../shared/api/types.ts";
import { canonicalJson } from "../../shared/content-hash.ts";

/**
 * Why a Cluster's status is written now, or undefined to leave it. Heartbeat time and capacity
 * move with every heartbeat; the lease carries liveness, so a change to only those is a
 * "report", written once reportMs (--cluster-status-update-frequency, minutes: kubelet's
 * node-status-report-frequency) has passed since the last written heartbeat. Any other change
 * (Ready, versions, nodes, API groups, conditions) is "changed", written at once. Fields may be
 * absent on either side (a Cluster no agent has reached yet has no capacity).
 */
export function clusterStatusWrite(before: ClusterStatus, desired: ClusterStatus, now: number, reportMs: number): "changed" | "report" | undefined {
  const json = (v: unknown) => canonicalJson(v ?? null);
  const steady = (s: ClusterStatus) => json({ ...s, lastHeartbeatTime: undefined, resourceSummary: undefined });
  if (steady(desired) !== steady(before)) return "changed";
  const volatileChanged = desired.lastHeartbeatTime !== before.lastHeartbeatTime || json(desired.resourceSummary) !== json(before.resourceSummary);
  const beatAge = before.lastHeartbeatTime ? now - Date.parse(before.lastHeartbeatTime) : Number.POSITIVE_INFINITY;
  return volatileChanged && beatAge >= reportMs ? "report" : undefined;
}
