// A seeded pseudo-random source (mulberry32), so a chaos run is repeatable from its seed: the same
// seed gives the same churn operations and the same faults at the same offsets.

export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  /** An integer in [lo, hi]. */
  between(lo: number, hi: number): number;
  pick<T>(items: readonly T[]): T;
  /** True with probability p. */
  chance(p: number): boolean;
  /** A non-empty subset of items, in their order. */
  subset<T>(items: readonly T[]): T[];
}

export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const r: Random = {
    next,
    int,
    between: (lo, hi) => lo + int(hi - lo + 1),
    pick: (items) => {
      if (items.length === 0) throw new Error("pick from nothing");
      return items[int(items.length)] as never;
    },
    chance: (p) => next() < p,
    subset: (items) => {
      const chosen = items.filter(() => next() < 0.5);
      return chosen.length > 0 ? chosen : [r.pick(items)];
    },
  };
  return r;
}
