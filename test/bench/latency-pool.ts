// Bounded concurrency for the benchmarks' bulk writes.

/** Runs fn over items with at most `limit` calls in flight. */
export async function pool<Item>(items: Item[], limit: number, fn: (item: Item) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++] as Item);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
