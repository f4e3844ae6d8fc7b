// How bench:agent-rss reads a process's memory: RSS and RssAnon once it settled, and V8's heap by
// space from the agent's Node metrics.
import { mib, rssAnonBytes, rssBytes } from "./rss.ts";

export interface Memory {
  rss: number;
  anon: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The median RSS (and the RssAnon of that sample) over five samples a second apart, after `settleMs`. */
export async function settledMemory(pid: number, settleMs: number): Promise<Memory> {
  await sleep(settleMs);
  const samples: Memory[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push({ rss: await rssBytes(pid), anon: await rssAnonBytes(pid) });
    await sleep(1000);
  }
  return samples.sort((a, b) => a.rss - b.rss)[2] as Memory;
}

/** "x MiB (RssAnon y MiB)". */
export function memoryLine(m: Memory): string {
  return `${mib(m.rss)} (RssAnon ${mib(m.anon)})`;
}

/** V8's committed heap by space, and memory outside it, from the agent's default Node metrics. */
export function printHeapSpaces(label: string, m: Record<string, number>): void {
  const space = (s: string) => m[`nodejs_heap_space_size_total_bytes{space="${s}"}`] ?? 0;
  const spaces = ["new", "old", "code", "large_object", "trusted", "shared"].filter((s) => space(s) > 0);
  console.log(
    `  ${label}: V8 heap committed ${mib(m.nodejs_heap_size_total_bytes ?? 0)} (${spaces.map((s) => `${s} ${mib(space(s))}`).join(", ")}), used ${mib(m.nodejs_heap_size_used_bytes ?? 0)}; external ${mib(m.nodejs_external_memory_bytes ?? 0)}`,
  );
}
