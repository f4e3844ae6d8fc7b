// Issue 25: a binding's status has a bounded size whatever the fleet's. Pure: the summary over
// every cluster's entry, and which entries the binding itself keeps.
import type { AggregatedStatusItem, AggregatedSummary } from "../../shared/api/types.ts";

/** --binding-status-entries' default: at most this many entries of target clusters, and of removals in full. */
export const DEFAULT_STATUS_ENTRIES = 100;

/** The removal words: a cluster that is no longer a target and still holds the object. */
const REMOVING = new Set(["WaitingForRemoval", "DeletionHeld"]);

/** The workload sums the summary carries, where a member object's .status has them. */
const SUMS = ["replicas", "readyReplicas", "availableReplicas", "updatedReplicas"] as const;

/** The current Work's hash per target cluster (those with a Work). */
export function expectedHashes(targets: readonly string[], hashOf: (cluster: string) => string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of targets) {
    const h = hashOf(t);
    if (h !== undefined) out[t] = h;
  }
  return out;
}

/** Whether a target cluster's entry is as desired: applied, Healthy, no status word, the Work's current hash (when known). */
export function asDesired(item: AggregatedStatusItem, expectedHash: string | undefined): boolean {
  if (item.applied !== true || item.health !== "Healthy" || (item.reason ?? "") !== "") return false;
  return expectedHash === undefined || item.observedHash === expectedHash;
}

/** Whether an entry is of a cluster still to confirm a removal (never left out). */
export function isRemoval(item: AggregatedStatusItem, targets: ReadonlySet<string>): boolean {
  return !targets.has(item.clusterName) || REMOVING.has(item.reason ?? "");
}

/** Counts and sums over every cluster's entry (entries: all of them, not only what one replica writes). */
export function bindingSummary(input: { targets: readonly string[]; entries: readonly AggregatedStatusItem[]; expectedHash: Readonly<Record<string, string>>; omittedEntries: number }): AggregatedSummary {
  const targets = new Set(input.targets);
  const summary: AggregatedSummary = { clusters: targets.size, reported: 0, applied: 0, asDesired: 0, omittedEntries: input.omittedEntries };
  const health: Record<string, number> = {};
  const reasons: Record<string, number> = {};
  const sums: Partial<Record<(typeof SUMS)[number], number>> = {};
  let removing = 0;
  for (const item of input.entries) {
    const reason = item.reason ?? "";
    if (reason !== "") reasons[reason] = (reasons[reason] ?? 0) + 1;
    if (isRemoval(item, targets)) {
      removing++;
      continue;
    }
    summary.reported++;
    if (item.applied === true) summary.applied++;
    if (asDesired(item, input.expectedHash[item.clusterName])) summary.asDesired++;
    const word = item.health ?? "Unknown";
    health[word] = (health[word] ?? 0) + 1;
    for (const field of SUMS) {
      const v = item.status?.[field];
      if (typeof v === "number" && Number.isFinite(v)) sums[field] = (sums[field] ?? 0) + v;
    }
  }
  if (Object.keys(health).length > 0) summary.health = health;
  if (Object.keys(reasons).length > 0) summary.reasons = reasons;
  if (removing > 0) summary.removing = removing;
  return { ...summary, ...sums };
}

export interface BoundedEntries {
  /** The entries the binding keeps, sorted by cluster. */
  entries: AggregatedStatusItem[];
  /** Entries of not-as-desired target clusters left out. */
  omitted: number;
  /** Whether anything was left out or shortened: the binding no longer tells every cluster. */
  bounded: boolean;
}

/**
 * Which of the entries (sorted by cluster) the binding keeps, for `targetCount` target clusters:
 * at or below `limit` targets, every entry (as Karmada writes them); above it, only the target
 * clusters that are not as desired, at most `limit` (the ones with a status word first, then the
 * Unhealthy, then by name). A cluster still to confirm a removal always keeps its entry (the
 * finalizer release, the removal confirmations and the brake's list read them), in full for the
 * first `limit` of them, as its name and word beyond.
 */
export function boundedEntries(input: { entries: readonly AggregatedStatusItem[]; targets: readonly string[]; expectedHash: Readonly<Record<string, string>>; limit: number }): BoundedEntries {
  const targets = new Set(input.targets);
  const removals = input.entries.filter((i) => isRemoval(i, targets));
  const compact = removals.length > input.limit;
  const kept = new Set<AggregatedStatusItem>();
  removals.forEach((item, n) => kept.add(n < input.limit ? item : { clusterName: item.clusterName, ...(item.reason ? { reason: item.reason } : {}) }));
  const others = input.entries.filter((i) => !isRemoval(i, targets));
  let omitted = 0;
  if (targets.size <= input.limit) for (const item of others) kept.add(item);
  else {
    const wanted = others.filter((i) => !asDesired(i, input.expectedHash[i.clusterName])).sort((a, b) => rank(a) - rank(b) || byName(a, b));
    for (const item of wanted.slice(0, input.limit)) kept.add(item);
    omitted = Math.max(0, wanted.length - input.limit);
  }
  const entries = [...kept].sort(byName);
  return { entries, omitted, bounded: compact || entries.length < input.entries.length };
}

// Which not-as-desired entries show first: a status word, then Unhealthy, then the rest.
function rank(i: AggregatedStatusItem): number {
  if ((i.reason ?? "") !== "") return 0;
  return i.health === "Unhealthy" ? 1 : 2;
}

function byName(a: AggregatedStatusItem, b: AggregatedStatusItem): number {
  return a.clusterName < b.clusterName ? -1 : a.clusterName > b.clusterName ? 1 : 0;
}
