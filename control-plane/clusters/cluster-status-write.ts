// Whether the cluster controller writes a Cluster's status: pure.
import type { ClusterStatus } from "../../shared/api/types.ts";
import { canonicalJson } from "../../shared/content-hash.ts";

/**
 * Heartbeat time and capacity move with every heartbeat, so a change to only those is written
 * once statusUpdateMs has passed since the last written heartbeat; any other change (Ready,
 * version, nodes, API groups) is written at once. Fields may be absent on either side (a Cluster
 * no agent has reached yet has no capacity).
 */
export function shouldWriteClusterStatus(before: ClusterStatus, desired: ClusterStatus, now: number, statusUpdateMs: number): boolean {
  const json = (v: unknown) => canonicalJson(v ?? null);
  const steady = (s: ClusterStatus) => json({ ...s, lastHeartbeatTime: undefined, resourceSummary: undefined });
  if (steady(desired) !== steady(before)) return true;
  const volatileChanged = desired.lastHeartbeatTime !== before.lastHeartbeatTime || json(desired.resourceSummary) !== json(before.resourceSummary);
  const beatAge = before.lastHeartbeatTime ? now - Date.parse(before.lastHeartbeatTime) : Number.POSITIVE_INFINITY;
  return volatileChanged && beatAge >= statusUpdateMs;
}
