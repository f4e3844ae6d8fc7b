// What the scheduler concluded for each template beyond its targets: an error, unplaced replicas,
// the affinity group in use. The binding controller (leader) records it; the status controller
// (same process) writes it into the binding's status. In memory: a new leader reschedules every
// template on start, which fills it again.
import { canonicalJson } from "../../shared/content-hash.ts";

export interface ScheduleOutcome {
  /** The policy cannot be scheduled; the binding keeps the clusters it has. */
  error?: string;
  /** Replicas unplaced, or no cluster fits (with targets empty). */
  unschedulable?: string;
  /** The placement.clusterAffinities group in use. */
  affinityName?: string;
  /** No policy claims the template: it keeps its last placement (the message says so). */
  unclaimed?: string;
  /** The kind's interpreter failed (a customization's script): the binding keeps what it has. */
  interpreterFailed?: string;
  /** The policy cannot take effect now (policy-activation.ts): the binding keeps what it has. */
  held?: { reason: string; message: string };
  /** The policy sets fields Flotilla does not act on (unacted-fields.ts): the message naming them. */
  unacted?: string;
  /** The schedule would take the namespace past a FederatedResourceQuota (issue 26): the binding keeps its last schedule. */
  quotaExceeded?: string;
}

/** Template key → its last schedule outcome; listeners hear of every change. */
export class ScheduleOutcomes {
  private readonly byKey = new Map<string, ScheduleOutcome>();
  private readonly listeners: ((key: string) => void)[] = [];

  get(key: string): ScheduleOutcome | undefined {
    return this.byKey.get(key);
  }

  /** Records an outcome; an empty one (all well, no affinity group) is stored as absent. */
  set(key: string, outcome: ScheduleOutcome): void {
    const empty = Object.values(outcome).every((v) => v === undefined);
    const before = this.byKey.get(key);
    if (canonicalJson(before ?? {}) === canonicalJson(outcome)) return;
    if (empty) this.byKey.delete(key);
    else this.byKey.set(key, outcome);
    for (const l of this.listeners) l(key);
  }

  delete(key: string): void {
    if (this.byKey.delete(key)) for (const l of this.listeners) l(key);
  }

  onChange(listener: (key: string) => void): void {
    this.listeners.push(listener);
  }
}
