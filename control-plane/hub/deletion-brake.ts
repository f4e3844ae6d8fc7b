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

/** One cluster's sliding window of deletions sent. */
export class DeletionWindow {
  private sent: number[] = [];
  private readonly budget: DeletionBudget;
  private readonly now: () => number;

  constructor(budget: DeletionBudget, now: () => number = Date.now) {
    this.budget = budget;
    this.now = now;
  }

  /** Whether one more deletion fits, for a cluster that holds `holding` objects now. */
  allows(holding: number): boolean {
    const since = this.now() - this.budget.windowMs;
    this.sent = this.sent.filter((t) => t > since);
    return this.sent.length < deletionAllowance(holding, this.sent.length, this.budget);
  }

  /** That many in the window so far (after allows()). */
  get used(): number {
    return this.sent.length;
  }

  record(): void {
    this.sent.push(this.now());
  }

  /** A person approved what was held: the window starts again. */
  reset(): void {
    this.sent = [];
  }
}
