/** Whether a failed start was a lost race for a port another process took first. */
export function isPortClash(err: unknown): boolean {
  const text = err instanceof Error ? err.message : String(err);
  return /address already in use|bind: address/i.test(text);
}

/** Runs start (which picks fresh ports each time) again when it lost a port race. */
export async function retryOnPortClash<T>(start: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await start();
    } catch (err) {
      if (i >= attempts || !isPortClash(err)) throw err;
    }
  }
}
