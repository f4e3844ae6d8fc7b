// Issue 42: when a binding's status is written. Pure decisions and the per-binding times they
// read. A change is written once its clusters have answered it (settled), not on a timer that
// splits one change's acknowledgements into several writes: a Deployment costs one binding-status
// write on its way to Available, whatever the fleet's size. A change that does not settle is
// written after MAX_SETTLE_MS with what is known, and a binding whose status churns is written at
// most once per MIN_WRITE_INTERVAL_MS.
import type { AggregatedStatusItem } from "../../shared/api/types.ts";
import { Health, type WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";

/** Reports for one binding that arrive within this window are looked at together (one reconcile). */
export const GATHER_MS = 100;
/**
 * A cluster's stream or readiness changes are looked at together over this window: each look at
 * a binding costs O(its clusters), and a reconnect storm changes hundreds of clusters' streams a
 * second, so at GATHER_MS every binding on them was aggregated ten times a second (at 10,000
 * clusters, 10 ms of CPU per reconnect against 5.4 at 5,000). Nothing a reader sees waits on a
 * stream change alone: the agent's reports and the Cluster's Ready condition bring their own.
 */
export const CLUSTER_CHANGE_GATHER_MS = 1000;
/** The least time between two status writes of one binding. */
export const MIN_WRITE_INTERVAL_MS = 1000;
/** The longest a change waits for the rest of its clusters' answers before what is known is written. */
export const MAX_SETTLE_MS = 5000;
/**
 * The longest a change waits when every cluster still to settle has applied it and only its
 * workload is still Progressing (its pods starting): a rollout is written when it is done, or
 * every MAX_PROGRESSING_SETTLE_MS while it lasts.
 */
export const MAX_PROGRESSING_SETTLE_MS = 30_000;

/** The entry words that are an answer in themselves (the cluster will say nothing more of this Work until something changes). */
const SETTLED_REMOVAL = "DeletionHeld";

export interface SettleInput {
  /** This replica's entries (the clusters it owns), as it would write them. */
  entries: readonly AggregatedStatusItem[];
  /** The binding's target clusters (none while it is deleted). */
  targets: readonly string[];
  /** The clusters this replica writes entries for. */
  owned: ReadonlySet<string>;
  /** Clusters whose Ready condition is not True: their entry says so, and nothing more is awaited. */
  notReady: ReadonlySet<string>;
  /** The current Work's hash per target cluster (absent: not rendered, or it could not be). */
  expectedHash: Readonly<Record<string, string>>;
  /** Target clusters whose Work could not be rendered: their entry says why. */
  renderErrors: ReadonlyMap<string, string>;
}

/**
 * The owned clusters whose answer to the current change is still to come: a target that has not
 * reported the current Work (or whose Work is not rendered yet), a workload still Progressing, a
 * cluster still to confirm a removal. A cluster that is not Ready, a failure word, a held deletion,
 * a render error and pods the member leaves Unschedulable are answers.
 */
export function unsettledClusters(input: SettleInput): string[] {
  const out: string[] = [];
  const entries = new Map(input.entries.map((e) => [e.clusterName, e]));
  const targets = new Set(input.targets);
  for (const cluster of targets) {
    if (!input.owned.has(cluster) || input.notReady.has(cluster) || input.renderErrors.has(cluster)) continue;
    const entry = entries.get(cluster);
    const hash = input.expectedHash[cluster];
    if (entry === undefined || hash === undefined || entry.observedHash !== hash) out.push(cluster);
    // Pods the member cannot place are an answer too: no rollout to wait for (the control plane moves them).
    else if ((entry.reason ?? "") === "" && entry.health === "Progressing" && !((entry.unschedulableReplicas ?? 0) > 0)) out.push(cluster);
  }
  for (const entry of input.entries) {
    if (targets.has(entry.clusterName) || input.notReady.has(entry.clusterName)) continue;
    if (entry.reason !== SETTLED_REMOVAL) out.push(entry.clusterName);
  }
  return out;
}

/** How long the change may wait at most: MAX_PROGRESSING_SETTLE_MS when every unsettled cluster applied the current Work and is only Progressing. */
export function longestWaitMs(input: SettleInput, unsettled: readonly string[]): number {
  if (unsettled.length === 0) return MAX_SETTLE_MS;
  const entries = new Map(input.entries.map((e) => [e.clusterName, e]));
  const rollingOut = unsettled.every((c) => {
    const e = entries.get(c);
    return e !== undefined && e.health === "Progressing" && (e.reason ?? "") === "" && e.observedHash !== undefined && e.observedHash === input.expectedHash[c];
  });
  return rollingOut ? MAX_PROGRESSING_SETTLE_MS : MAX_SETTLE_MS;
}

/**
 * While a change waits: whether a target this replica hears still owes its answer, read from the
 * agents' reports alone (a cheap look that spares a large binding a full aggregation at each of
 * its acknowledgements). It may see a cluster as owing whose persisted entry already answered;
 * then the change is written when it is due, never later.
 */
export function answerOwed(input: {
  targets: readonly string[];
  reports: ReadonlyMap<string, WorkStatus>;
  /** The current Work's hash for a cluster, if it has one. */
  hashOf: (cluster: string) => string | undefined;
  renderErrors: ReadonlyMap<string, string>;
  /** Whether this replica hears the cluster and it is Ready (else its entry is no answer to wait for). */
  answersHere: (cluster: string) => boolean;
}): boolean {
  for (const cluster of input.targets) {
    if (input.renderErrors.has(cluster) || !input.answersHere(cluster)) continue;
    const report = input.reports.get(cluster);
    const hash = input.hashOf(cluster);
    if (report === undefined || report.deleted || hash === undefined || report.observedHash !== hash) return true;
    const first = report.manifests[0];
    if (report.reason === "" && first?.health === Health.HEALTH_PROGRESSING && !((first.unschedulableReplicas ?? 0) > 0)) return true;
  }
  return false;
}

/**
 * When a status that differs from the written one is due (ms since the epoch): at once when
 * settled, else MAX_SETTLE_MS after the change was first seen; never sooner than
 * MIN_WRITE_INTERVAL_MS after the binding's last write.
 */
export function writeDueAt(input: { settled: boolean; now: number; pendingSince: number; lastWriteAt: number | undefined; longestMs?: number }): number {
  const earliest = input.lastWriteAt === undefined ? input.now : input.lastWriteAt + MIN_WRITE_INTERVAL_MS;
  return Math.max(earliest, input.settled ? input.now : input.pendingSince + (input.longestMs ?? MAX_SETTLE_MS));
}

/** Per binding key: when an unwritten change was first seen, and when the status was last written. */
export class StatusWriteTimes {
  private readonly pendingSince = new Map<string, number>();
  private readonly lastWriteAt = new Map<string, number>();
  /** The longest wait the last full look allowed each pending change (longestWaitMs). */
  private readonly longest = new Map<string, number>();

  /** How long until a differing status of key is written (0: now); longestMs: how long it may wait at most since first seen. */
  waitMs(key: string, settled: boolean, now: number, longestMs = MAX_SETTLE_MS): number {
    let since = this.pendingSince.get(key);
    if (since === undefined) {
      since = now;
      this.pendingSince.set(key, now);
    }
    this.longest.set(key, longestMs);
    return Math.max(0, writeDueAt({ settled, now, pendingSince: since, lastWriteAt: this.lastWriteAt.get(key), longestMs }) - now);
  }

  /** While a change of key waits for its answers: how long until it is due anyway (0: none waits, or due now). */
  pendingWaitMs(key: string, now: number): number {
    const since = this.pendingSince.get(key);
    if (since === undefined) return 0;
    return Math.max(0, writeDueAt({ settled: false, now, pendingSince: since, lastWriteAt: this.lastWriteAt.get(key), longestMs: this.longest.get(key) ?? MAX_SETTLE_MS }) - now);
  }

  /** The status of key was written (or needs no write any more). */
  wrote(key: string, now: number): void {
    this.pendingSince.delete(key);
    this.longest.delete(key);
    this.lastWriteAt.set(key, now);
  }

  /** Nothing differs any more: the next change starts its own wait. */
  caughtUp(key: string): void {
    this.pendingSince.delete(key);
    this.longest.delete(key);
  }

  forget(key: string): void {
    this.pendingSince.delete(key);
    this.longest.delete(key);
    this.lastWriteAt.delete(key);
  }
}
