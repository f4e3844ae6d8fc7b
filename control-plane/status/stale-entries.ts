// Entries a replica's server-side apply cannot remove (pure). A replica owns the aggregatedStatus
// entries of the clusters it hears, under its own field manager; an entry that another manager
// also owns (a replica killed and replaced under another name) stays when the apply leaves it out,
// and a deleting binding's finalizer would wait on it forever. The replica that hears the cluster
// now removes it with a JSON patch (an update, which takes the entry from every manager).
import type { AggregatedStatusItem } from "../../shared/api/types.ts";

export type JsonPatchOp = { op: "test"; path: string; value: string } | { op: "remove"; path: string };

/**
 * after: the binding's entries as the apply answered; owned: the clusters this replica writes
 * entries for; mine: the clusters it just applied entries for. An empty list: nothing stale.
 * Each removal is guarded by a test of the entry's cluster, from the end so indexes hold.
 */
export function staleEntryPatch(after: readonly AggregatedStatusItem[], owned: ReadonlySet<string>, mine: ReadonlySet<string>): JsonPatchOp[] {
  const ops: JsonPatchOp[] = [];
  for (let i = after.length - 1; i >= 0; i--) {
    const cluster = (after[i] as AggregatedStatusItem).clusterName;
    if (!owned.has(cluster) || mine.has(cluster)) continue;
    ops.push({ op: "test", path: `/status/aggregatedStatus/${i}/clusterName`, value: cluster }, { op: "remove", path: `/status/aggregatedStatus/${i}` });
  }
  return ops;
}
