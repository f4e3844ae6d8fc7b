/** Options for waitFor. */
export interface WaitOptions {
  /** What is awaited, for the timeout message. */
  what: string;
  timeoutMs: number;
  intervalMs?: number;
}

/**
 * Calls check until it returns a value other than undefined/false, or throws after the timeout with
 * the last error seen. For readiness of test processes only: product code uses watches.
 */
export async function waitFor<T>(check: () => Promise<T | undefined | false>, opts: WaitOptions): Promise<T> {
  const deadline = Date.now() + opts.timeoutMs;
  const interval = opts.intervalMs ?? 100;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const cause = lastError instanceof Error ? `: ${lastError.message}` : "";
      throw new Error(`timed out after ${opts.timeoutMs} ms waiting for ${opts.what}${cause}`, { cause: lastError });
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}
