// bench:fleet: the leader's Lease as the apiserver shows it during a reconnect storm, polled from
// outside the control plane (so a leader that starves, exits or is replaced is seen the same way
// before and after a change): the gaps between its renewals and the leader changes.
import type { KubeRest } from "../../shared/kube-rest.ts";

/** One look at the Lease. */
export interface LeaseSighting {
  holder: string;
  renewTime: string;
  transitions: number;
}

export interface LeaseFigures {
  /** Renewals seen (distinct renewTimes). */
  renewals: number;
  /** Between successive renewals, by the renewTimes the leader wrote (ms). */
  gapP99Ms: number;
  gapMaxMs: number;
  /** Holder changes and leaseTransitions added while watched (a restarted leader that takes its lease back counts). */
  leaderChanges: number;
}

/** The figures of a run of sightings (pure); gaps need two renewals, else NaN. */
export function leaseFigures(sightings: LeaseSighting[]): LeaseFigures {
  const times = [...new Set(sightings.map((s) => s.renewTime).filter((t) => t !== ""))].map((t) => Date.parse(t)).sort((a, b) => a - b);
  const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
  const sorted = [...gaps].sort((a, b) => a - b);
  let changes = 0;
  for (let i = 1; i < sightings.length; i++) {
    const [a, b] = [sightings[i - 1] as LeaseSighting, sightings[i] as LeaseSighting];
    if (a.holder !== b.holder || a.transitions !== b.transitions) changes++;
  }
  return {
    renewals: times.length,
    gapP99Ms: sorted.length === 0 ? Number.NaN : (sorted[Math.min(sorted.length, Math.max(1, Math.ceil(0.99 * sorted.length))) - 1] as number),
    gapMaxMs: sorted.length === 0 ? Number.NaN : (sorted.at(-1) as number),
    leaderChanges: changes,
  };
}

/** Polls the Lease every intervalMs until stopped; resolves with what it saw. */
export function watchLease(rest: KubeRest, path: string, intervalMs = 250): { stop(): Promise<LeaseSighting[]> } {
  const seen: LeaseSighting[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const l = await rest.request<{ spec?: { holderIdentity?: string; renewTime?: string; leaseTransitions?: number } }>("GET", path, { timeoutMs: 5000 }).catch(() => undefined);
      if (l !== undefined) seen.push({ holder: l.spec?.holderIdentity ?? "", renewTime: l.spec?.renewTime ?? "", transitions: l.spec?.leaseTransitions ?? 0 });
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return seen;
    },
  };
}
