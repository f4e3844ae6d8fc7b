// Issue 42: a new binding's Works need not wait for its write. While the leader's binding
// controller writes a binding no informer holds yet, the binding it writes is kept here, so the
// Works are rendered from it at the same time as the write, not after the write and its watch
// event. It rules over the informer's copy until the informer shows this write itself (its
// resourceVersion or a later one: an older write's event, of this leader or of the one before, is
// no reason to render from less); it goes when its write fails, and after MAX_AHEAD_MS. Each way
// out but the informer's own event tells the listeners, so the Works render again.
import type { ResourceBinding } from "../../shared/api/types.ts";

/** The longest a binding is rendered from ahead of the informer (a write whose watch event never came, or came before its answer). */
export const MAX_AHEAD_MS = 10_000;

interface Ahead {
  binding: ResourceBinding;
  at: number;
  /** Which write it is (a later write of the same key replaces it). */
  write: number;
  /** The resourceVersion the apiserver answered the write with, once it answered. */
  resourceVersion?: string;
  /** Ends it after MAX_AHEAD_MS even if nobody looks (a lookup ends it too). */
  timer?: NodeJS.Timeout;
}

/** Whether resourceVersion `seen` is `written` or later (etcd's revisions are integers; anything else only by equality). */
export function showsWrite(seen: string | undefined, written: string): boolean {
  if (seen === undefined) return false;
  if (/^\d+$/.test(seen) && /^\d+$/.test(written)) return BigInt(seen) >= BigInt(written);
  return seen === written;
}

export class BindingsAhead {
  private readonly bindings = new Map<string, Ahead>();
  private readonly listeners = new Set<(key: string) => void>();
  private readonly endListeners = new Set<(key: string) => void>();
  private readonly now: () => number;
  private writes = 0;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** Hears of a key whose binding ahead came or went (the Works render again). */
  onChange(listener: (key: string) => void): void {
    this.listeners.add(listener);
  }

  /**
   * Hears of a key that is no longer ahead, whichever way its entry ended (the informer's event of
   * its write too; not a newer write of the same key taking its place), after the informers'
   * handlers of that event ran: what was judged on the informer's copy meanwhile (the hub kept a
   * deletion) is judged again on what the informer now holds.
   */
  onEnd(listener: (key: string) => void): void {
    this.endListeners.add(listener);
  }

  /** A new binding is being written (template key): its Works may be rendered from it now. Returns the write's token. */
  writing(key: string, binding: ResourceBinding): number {
    const write = ++this.writes;
    this.end(key, false, true);
    const timer = setTimeout(() => this.bindings.get(key)?.write === write && this.end(key, true), MAX_AHEAD_MS + 1);
    timer.unref();
    this.bindings.set(key, { binding, at: this.now(), write, timer });
    this.tell(key);
    return write;
  }

  /**
   * The apiserver took write `write` at this resourceVersion: the informer's event of it (or of a
   * later write) ends it; `seen`, what the informer holds now, ends it at once when its event came
   * before the answer.
   */
  written(key: string, write: number, resourceVersion: string | undefined, seen: ResourceBinding | undefined): void {
    const ahead = this.bindings.get(key);
    if (ahead?.write !== write || resourceVersion === undefined || resourceVersion === "") return;
    ahead.resourceVersion = resourceVersion;
    if (seen !== undefined) this.landed(key, seen);
  }

  /** Write `write` failed: its Works are rendered again from what the informer holds (a later write's entry stays). */
  failed(key: string, write: number): void {
    if (this.bindings.get(key)?.write === write) this.end(key);
    this.tell(key);
  }

  /** The informer holds this binding now: it ends the entry when it shows the entry's own write (its event renders the Works). */
  landed(key: string, binding: ResourceBinding): void {
    const ahead = this.bindings.get(key);
    if (ahead?.resourceVersion !== undefined && showsWrite(binding.metadata.resourceVersion, ahead.resourceVersion)) this.end(key);
  }

  /** The binding being written, unless it waited longer than MAX_AHEAD_MS for its watch event. */
  get(key: string): ResourceBinding | undefined {
    const ahead = this.bindings.get(key);
    if (ahead === undefined) return undefined;
    if (this.now() - ahead.at <= MAX_AHEAD_MS) return ahead.binding;
    this.end(key, true);
    return undefined;
  }

  /** Ends key's entry (telling the listeners when asked; the end listeners unless a newer write replaces it). */
  private end(key: string, tell = false, replaced = false): void {
    const ahead = this.bindings.get(key);
    if (ahead === undefined) return;
    clearTimeout(ahead.timer);
    this.bindings.delete(key);
    if (tell) this.tell(key);
    if (!replaced && this.endListeners.size > 0) {
      // Later: landed() runs inside the first informer handler, before the others saw the event.
      setImmediate(() => {
        if (this.bindings.has(key)) return; // ahead again meanwhile: its own end will tell
        for (const l of this.endListeners) l(key);
      });
    }
  }

  private tell(key: string): void {
    for (const l of this.listeners) l(key);
  }
}
