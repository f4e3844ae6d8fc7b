// Issue 42: a new binding's Works need not wait for its write. While the leader's binding
// controller writes a binding no informer holds yet, the binding it wrote is kept here, so the
// Works are rendered from it at the same time as the write, not after the write and its watch
// event. Gone once the informer holds the binding, when the write fails, or after MAX_AHEAD_MS.
import type { ResourceBinding } from "../../shared/api/types.ts";

/** The longest a binding is rendered from ahead of the informer (a write whose watch event never came). */
export const MAX_AHEAD_MS = 30_000;

export class BindingsAhead {
  private readonly bindings = new Map<string, { binding: ResourceBinding; at: number }>();
  private readonly listeners = new Set<(key: string) => void>();
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** Hears of a key whose binding ahead came or went (the Works render again). */
  onChange(listener: (key: string) => void): void {
    this.listeners.add(listener);
  }

  /** A new binding is being written (template key): its Works may be rendered from it now. */
  writing(key: string, binding: ResourceBinding): void {
    this.bindings.set(key, { binding, at: this.now() });
    for (const l of this.listeners) l(key);
  }

  /** The write failed: its Works are rendered again from what the informer holds. */
  failed(key: string): void {
    if (!this.bindings.delete(key)) return;
    for (const l of this.listeners) l(key);
  }

  /** The informer holds the binding now: its own event renders the Works. */
  landed(key: string): void {
    this.bindings.delete(key);
  }

  /** The binding being written, unless it waited longer than MAX_AHEAD_MS for its watch event. */
  get(key: string): ResourceBinding | undefined {
    const ahead = this.bindings.get(key);
    if (ahead === undefined) return undefined;
    if (this.now() - ahead.at <= MAX_AHEAD_MS) return ahead.binding;
    this.bindings.delete(key);
    return undefined;
  }
}
