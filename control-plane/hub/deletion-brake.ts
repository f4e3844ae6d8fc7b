// The blast-radius brake (DESIGN §11): pure. One change must not empty a cluster: when the
// deletions sent to a cluster within a sliding window would pass its budget, the rest are held
// until a person approves them (flotillactl deletions approve) or rejects them.

/** How many deletions one cluster may take in a window. */
export interface DeletionBudget {
  /** A share of what the cluster held at the window's start; 100 or more turns the brake off. */
  percent: number;
  /** Deletions always allowed in a window, however few objects the cluster holds. */
  min: number;
  windowMs: number;
}

export const DEFAULT_DELETION_BUDGET: DeletionBudget = { percent: 50, min: 20, windowMs: 60_000 };

/**
 * The deletions a cluster may take within one window: max(min, percent of what it held when the
 * window began, which is what it holds now plus what the window already removed).
 */
export function deletionAllowance(holding: number, sentInWindow: number, b: DeletionBudget): number {
  if (b.percent >= 100) return Number.POSITIVE_INFINITY;
  return Math.max(b.min, Math.floor((b.percent * (holding + sentInWindow)) / 100));
}

/**
 * One cluster's sliding window of deletions sent, by Work key: a key sent again within the window
 * (its agent reconnected before it finished, or retries a kept Namespace) counts once.
 */
export class DeletionWindow {
  /** Work key → when its deletion was last counted. */
  private sent = new Map<string, number>();
  private readonly budget: DeletionBudget;
  private readonly now: () => number;

  constructor(budget: DeletionBudget, now: () => number = Date.now) {
    this.budget = budget;
    this.now = now;
  }

  private expire(): void {
    const since = this.now() - this.budget.windowMs;
    for (const [key, at] of this.sent) if (at <= since) this.sent.delete(key);
  }

  /** Whether the deletion of key fits, for a cluster that holds `holding` objects now: one counted in the window already does. */
  allows(holding: number, key: string): boolean {
    this.expire();
    if (this.sent.has(key)) return true;
    return this.sent.size < deletionAllowance(holding, this.sent.size, this.budget);
  }

  /** Whether nothing is counted in the window any more (it may then be forgotten). */
  idle(): boolean {
    this.expire();
    return this.sent.size === 0;
  }

  /** That many in the window so far (after allows()). */
  get used(): number {
    return this.sent.size;
  }

  /** Counts key's deletion in the window (once while it is in the window). */
  record(key: string): void {
    if (!this.sent.has(key)) this.sent.set(key, this.now());
  }

  /** A person approved what was held: the window starts again. */
  reset(): void {
    this.sent.clear();
  }
}
