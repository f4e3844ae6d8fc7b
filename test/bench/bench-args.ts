// What benchmarks read from their command lines, pure: counts, and Node flags or environment
// variables given as one space-separated value (bench:fleet's --control-plane-node-args and
// --control-plane-env, bench:hub-floor's --server-node-args and --server-env).

/** A positive integer, or an error naming the flag. */
export function positiveInt(flag: string, v: string | undefined): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${flag} wants a positive integer, not ${v}`);
  return n;
}

/** The words of a space-separated value ("" gives none). */
export function words(text: string | undefined): string[] {
  return (text ?? "").split(" ").filter((a) => a !== "");
}

/** "K=V K2=V2" as a record, or an error naming the flag for a word that is no K=V pair. */
export function envPairs(flag: string, text: string | undefined): Record<string, string> {
  return Object.fromEntries(
    words(text).map((kv) => {
      const at = kv.indexOf("=");
      if (at < 1) throw new Error(`--${flag} wants K=V pairs, not ${kv}`);
      return [kv.slice(0, at), kv.slice(at + 1)];
    }),
  );
}
