// Replicas that cannot run move on what the agents report (scheduling/unschedulable-moves.ts): a
// binding whose replicas may move is looked at again when its clusters' Unschedulable pods change,
// or, while a move waits, when their availability does. Other status writes change nothing here.
import type { ResourceBinding } from "../../shared/api/types.ts";
import { movesSignal } from "../scheduling/unschedulable-moves.ts";

export class MoveSignals {
  /** Per binding (namespace/name), its last signal; only bindings whose replicas may move. */
  private readonly signals = new Map<string, string>();

  /** Whether the binding's signal changed with this event (the caller then requeues its template). */
  changed(b: ResourceBinding, gone: boolean): boolean {
    const key = `${b.metadata.namespace ?? ""}/${b.metadata.name ?? ""}`;
    const signal = gone ? "" : movesSignal(b.spec, b.status?.aggregatedStatus ?? []);
    if ((this.signals.get(key) ?? "") === signal) return false;
    if (signal === "") this.signals.delete(key);
    else this.signals.set(key, signal);
    return true;
  }
}
