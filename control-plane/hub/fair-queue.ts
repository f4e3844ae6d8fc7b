// Issue 42 (review): the connections waiting below TLS, per source address, served round-robin
// across addresses, so one host holding connections open delays others by one turn each, not by
// its whole queue; bounded in all: when full, room is made by dropping the newest connection of
// the address that holds the most (the newcomer itself when its address does). Pure but for the
// items it holds; every operation is O(1).

export class FairQueue<T> {
  /** Waiting items per source; the Map's order is the round-robin's. */
  private readonly bySource = new Map<string, T[]>();
  /** Sources by how many items they hold, and the largest such count. */
  private readonly byLength = new Map<number, Set<string>>();
  private longest = 0;
  private total = 0;
  private readonly bound: number;

  constructor(bound: number) {
    this.bound = Math.max(1, bound);
  }

  get size(): number {
    return this.total;
  }

  /** Adds an item from source; returns what was dropped to keep within the bound (possibly the item itself), else undefined. */
  push(source: string, item: T): T | undefined {
    let dropped: T | undefined;
    if (this.total >= this.bound) {
      const held = this.bySource.get(source)?.length ?? 0;
      if (held + 1 >= this.longest) return item; // its source would hold as many as any: the newcomer goes
      const fullest = this.byLength.get(this.longest)?.values().next().value as string;
      const items = this.bySource.get(fullest) as T[];
      dropped = items.pop();
      this.resized(fullest, items.length + 1, items.length);
      this.total--;
    }
    const items = this.bySource.get(source) ?? [];
    if (items.length === 0) this.bySource.set(source, items);
    items.push(item);
    this.resized(source, items.length - 1, items.length);
    this.total++;
    return dropped;
  }

  /** The next item to serve (the oldest of the source whose turn it is), left in place. */
  peek(): T | undefined {
    const first = this.bySource.values().next();
    return first.done ? undefined : first.value[0];
  }

  /** Takes the next item; its source's turn passes to the back of the round. */
  shift(): T | undefined {
    const first = this.bySource.entries().next();
    if (first.done) return undefined;
    const [source, items] = first.value;
    const item = items.shift();
    this.bySource.delete(source);
    if (items.length > 0) this.bySource.set(source, items);
    this.resized(source, items.length + 1, items.length);
    this.total--;
    return item;
  }

  /** Takes every item (the listener closing). */
  drain(): T[] {
    const all = [...this.bySource.values()].flat();
    this.bySource.clear();
    this.byLength.clear();
    this.longest = 0;
    this.total = 0;
    return all;
  }

  private resized(source: string, from: number, to: number): void {
    this.byLength.get(from)?.delete(source);
    if (from > 0 && this.byLength.get(from)?.size === 0) this.byLength.delete(from);
    if (to === 0) this.bySource.delete(source);
    else {
      const set = this.byLength.get(to) ?? new Set<string>();
      set.add(source);
      this.byLength.set(to, set);
    }
    this.longest = Math.max(this.longest, to);
    while (this.longest > 0 && !this.byLength.has(this.longest)) this.longest--;
  }
}
