// How a Hello names the Works the agent last applied under an earlier registration of its cluster
// (issue 37, item 7): one bit per held Work, over the Hello's work keys in ascending order, so the
// Hello of a member that registered again grows by an eighth of a byte per Work, not by each key
// again. The list of keys is still sent while small, for hubs from before the bits. Pure.
import { Buffer } from "node:buffer";

/** Past this many bytes of keys, the list is left out (the bits say the same). */
export const EARLIER_LIST_BUDGET_BYTES = 256 * 1024;

export interface EarlierRegistration {
  earlierRegistrationWorks: string[];
  earlierRegistrationBits: Buffer;
}

/** The Hello's fields for the earlier registration's keys among the work keys it holds. */
export function earlierRegistration(workKeys: readonly string[], earlier: readonly string[]): EarlierRegistration {
  const wanted = new Set(earlier);
  const sorted = [...workKeys].sort();
  const bits = Buffer.alloc(wanted.size === 0 ? 0 : Math.ceil(sorted.length / 8));
  sorted.forEach((key, i) => {
    if (wanted.has(key)) bits[i >> 3] = (bits[i >> 3] ?? 0) | (1 << (i & 7));
  });
  const listBytes = earlier.reduce((n, k) => n + Buffer.byteLength(k), 0);
  return { earlierRegistrationWorks: listBytes <= EARLIER_LIST_BUDGET_BYTES ? [...earlier] : [], earlierRegistrationBits: bits };
}

/** The earlier registration's keys the bits name over the work keys, or why the bits are malformed. */
export function earlierFromBits(workKeys: readonly string[], bits: Uint8Array): { ok: true; keys: string[] } | { ok: false; reason: string } {
  const sorted = [...workKeys].sort();
  if (bits.length > Math.ceil(sorted.length / 8)) return { ok: false, reason: `earlierRegistrationBits has ${bits.length} bytes for ${sorted.length} Works` };
  const keys: string[] = [];
  for (let i = 0; i < bits.length * 8; i++) {
    if (((bits[i >> 3] ?? 0) & (1 << (i & 7))) === 0) continue;
    const key = sorted[i];
    if (key === undefined) return { ok: false, reason: `earlierRegistrationBits sets bit ${i}, past the ${sorted.length} Works` };
    keys.push(key);
  }
  return { ok: true, keys };
}

/** What a Hello says the earlier registration's keys are: the bits when present, else the list (a hub-side read of a checked Hello). */
export function earlierOfHello(h: { workHashes: Record<string, string>; earlierRegistrationWorks?: string[]; earlierRegistrationBits?: Uint8Array }): string[] {
  if (h.earlierRegistrationBits === undefined || h.earlierRegistrationBits.length === 0) return h.earlierRegistrationWorks ?? [];
  const read = earlierFromBits(Object.keys(h.workHashes), h.earlierRegistrationBits);
  return read.ok ? read.keys : [];
}
