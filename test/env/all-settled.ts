/**
 * Promise.all that waits for every promise to settle before it rejects with the first failure, so
 * nothing is still starting (and left out of what stop() ends) when the caller cleans up.
 */
export async function allSettledOrThrow<T extends readonly unknown[]>(promises: { readonly [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed !== undefined) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
