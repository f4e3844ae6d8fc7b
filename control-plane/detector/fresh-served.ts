// The binding controller's memory of the fresh reschedules it served (scheduling/fresh-reschedule.ts
// decides): the binding's annotation is the durable record; this covers the moments its cache
// has not shown the write yet, so a trigger is served once and its schedule is not undone by a
// reconcile that reads the binding from before it. Kept only as long as a cache may lag a write
// (CACHE_LAG_MS); in memory only: a new leader reads the annotation.
import type { ResourceBinding } from "../../shared/api/types.ts";
import { CACHE_LAG_MS, cacheBehind, freshRescheduleDue, laterOf, type ServedHere, servedTrigger } from "../scheduling/fresh-reschedule.ts";

/** How soon to look again at a binding whose cache has not shown this process' fresh schedule yet. */
export const CACHE_RECHECK_MS = 200;

export class FreshServed {
  private readonly byKey = new Map<string, ServedHere>();
  private readonly now: () => number;

  constructor(now: () => number) {
    this.now = now;
  }

  /** Whether the binding asks for a fresh reschedule not served yet (to enqueue its template). */
  due(key: string, b: ResourceBinding): boolean {
    return freshRescheduleDue(b, this.recent(key)?.trigger) !== undefined;
  }

  /**
   * What placeTemplate needs: the trigger to serve now and the one served before; or "behind" when
   * the cached binding predates this process' last fresh schedule of it (look again shortly).
   * current: the template's current binding (one under a legacy name is moved first, then served).
   */
  input(key: string, current: ResourceBinding | undefined): { freshTrigger?: string; served?: string } | "behind" {
    const here = this.recent(key);
    if (cacheBehind(current, here, this.now())) return "behind";
    const due = freshRescheduleDue(current, here?.trigger);
    const served = laterOf(servedTrigger(current), here?.trigger);
    return { ...(due === undefined ? {} : { freshTrigger: due }), ...(served === undefined ? {} : { served }) };
  }

  /** The schedule that served trigger was written. */
  written(key: string, trigger: string): void {
    const now = this.now();
    for (const [k, v] of this.byKey) if (now - v.at >= CACHE_LAG_MS) this.byKey.delete(k);
    this.byKey.set(key, { trigger, at: now });
  }

  /** What this process served for the key within the time its cache may lag. */
  private recent(key: string): ServedHere | undefined {
    const here = this.byKey.get(key);
    return here !== undefined && this.now() - here.at < CACHE_LAG_MS ? here : undefined;
  }
}
