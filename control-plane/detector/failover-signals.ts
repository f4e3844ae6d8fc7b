// Application failover (scheduling/application-failover.ts) acts on what the agents report: a
// binding whose policy asks for it is looked at again when a cluster's health word changes, and
// the binding controller keeps here, between its looks, since when each cluster's copy has been
// Unhealthy. In memory only, as Karmada's: a restart or a new leader starts each clock again at
// its first look, which only delays a move.
import type { ResourceBinding } from "../../shared/api/types.ts";
import { applicationFailureClusters, type UnhealthySince } from "../scheduling/application-failover.ts";

export class FailoverSignals {
  /** Per binding (namespace/name), its clusters' health words last seen; only bindings that fail over. */
  private readonly signals = new Map<string, string>();
  /** Per template key, since when each cluster's copy has been Unhealthy. */
  private readonly since = new Map<string, UnhealthySince>();

  /** Whether the binding's health words changed with this event (the caller then requeues its template). */
  changed(b: ResourceBinding, gone: boolean): boolean {
    const key = `${b.metadata.namespace ?? ""}/${b.metadata.name ?? ""}`;
    const watched = !gone && (b.spec.failover?.application !== undefined || applicationFailureClusters(b.spec.gracefulEvictionTasks).size > 0);
    const signal = watched ? JSON.stringify((b.status?.aggregatedStatus ?? []).map((i) => [i.clusterName, i.health ?? ""]).sort()) : "";
    if ((this.signals.get(key) ?? "") === signal) return false;
    if (signal === "") this.signals.delete(key);
    else this.signals.set(key, signal);
    return true;
  }

  /** What placeTemplate needs for a template: its clocks, taken out (put back by keep). */
  take(templateKey: string): { unhealthySince?: UnhealthySince } {
    const since = this.since.get(templateKey);
    this.since.delete(templateKey);
    return since === undefined ? {} : { unhealthySince: since };
  }

  keep(templateKey: string, since: UnhealthySince | undefined): void {
    if (since !== undefined && Object.keys(since).length > 0) this.since.set(templateKey, since);
  }
}
