// How a Cluster is leaving, as the hub judges the removals it sends there: pure.
import { type Cluster, LABELS } from "./api/types.ts";

/**
 * "unjoining": deleted by `flotillactl unjoin`, its agent removes what Flotilla applied
 * (ClusterUnjoined). "forced": deleted by `unjoin --force`, its member keeps everything it runs,
 * so nothing at all is removed from it, whatever its placement says meanwhile (issue 37, item 9: the
 * removals sent until the forced release ended the stream raced it, as ClusterUnjoined and, once
 * the deleted Cluster left the placements, as PlacementChanged). "member": not being deleted.
 */
export function unjoinOf(c: Cluster): "member" | "unjoining" | "forced" {
  if (c.metadata.deletionTimestamp === undefined) return "member";
  return c.metadata.annotations?.[LABELS.unjoinForce] === "true" ? "forced" : "unjoining";
}

/**
 * Whether the hub judges a cluster's absent Works as its unjoin (true), as a member's (false), or
 * judges nothing there (undefined): a Cluster unjoined by force, or one the cache lacks (a cache
 * that lacks it is no intent; its stream is ending anyway). The hub and the quota sync both ask.
 */
export function judgedLeaving(c: Cluster | undefined): boolean | undefined {
  if (c === undefined) return undefined;
  const u = unjoinOf(c);
  if (u === "forced") return undefined;
  return u === "unjoining";
}
