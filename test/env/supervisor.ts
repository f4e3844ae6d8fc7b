// What kubelet does for the Flotilla pods: a control-plane replica or an agent that exits is
// started again in place (same ports, data and identity) after a back-off that doubles while it
// keeps failing (restart-policy.ts decides; this acts and reports). A replica exits on purpose
// when it loses its lease or wakes past its renew deadline (so a fresh process competes); without
// this it would stay down. Used by `up` (only processes that ended by themselves), the chaos run
// and the benchmarks (every exit). A process someone else holds (the chaos injector killing it on
// purpose, `npm run env -- stop`) is left to them until released or restarted.
import type { ManagedProcess, ProcessExit } from "./managed-process.ts";
import { DEFAULT_BACKOFF, type RestartPolicy, restartDecision } from "./restart-policy.ts";

/** What the supervisor saw and did, for a report line. */
export type SupervisorEvent =
  | { type: "restarting"; process: ManagedProcess; label: string; exit: ProcessExit; ranForMs: number; delayMs: number }
  | { type: "restarted"; process: ManagedProcess; label: string }
  | { type: "restart-failed"; process: ManagedProcess; label: string; error: string }
  | { type: "left-down"; process: ManagedProcess; label: string; exit: ProcessExit; why: string };

export interface SuperviseOptions {
  /** Default: every exit, with DEFAULT_BACKOFF. */
  policy?: RestartPolicy;
  /** How events and restarts() name a process (default its name). */
  labels?: ReadonlyMap<ManagedProcess, string>;
  /** restarts() times are offsets from this (default now). */
  startedAt?: number;
  /** How long a restarted process may take to be ready (default 120 s). */
  readyTimeoutMs?: number;
  onEvent?(e: SupervisorEvent): void;
}

export interface Supervisor {
  /** Someone else takes a process over (kills, stops or restarts it) until release(). */
  hold(p: ManagedProcess): void;
  release(p: ManagedProcess): void;
  /** Every restart made, in order: which process, when (offset from startedAt), its exit. */
  restarts(): { name: string; atMs: number; exit: string }[];
  stop(): void;
}

const HELD_POLL_MS = 250;

export function supervise(processes: ManagedProcess[], o: SuperviseOptions = {}): Supervisor {
  const policy = o.policy ?? { when: "always", ...DEFAULT_BACKOFF };
  const startedAt = o.startedAt ?? Date.now();
  const held = new Set<ManagedProcess>();
  const lastDelay = new Map<ManagedProcess, number>();
  const done: { name: string; atMs: number; exit: string }[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });
  const emit = (e: SupervisorEvent) => o.onEvent?.(e);

  const watch = async (p: ManagedProcess): Promise<void> => {
    const label = o.labels?.get(p) ?? p.name;
    while (!stopped) {
      const run = p.runs;
      const exit = await p.exited;
      const ranForMs = Date.now() - p.startedAtMs;
      if (stopped) return;
      if (p.runs !== run) continue; // restarted by someone else already: watch the new run
      if (held.has(p)) {
        while (held.has(p) && p.runs === run && !stopped) await sleep(HELD_POLL_MS);
        // Released without a new run (the holder failed to restart it): judge the exit as ours.
        if (p.runs !== run || stopped) continue;
      }
      const d = restartDecision(policy, exit, ranForMs, lastDelay.get(p));
      if (!d.restart) {
        emit({ type: "left-down", process: p, label, exit, why: d.why });
        lastDelay.delete(p);
        await p.nextRun();
        continue;
      }
      emit({ type: "restarting", process: p, label, exit, ranForMs, delayMs: d.delayMs });
      lastDelay.set(p, d.delayMs);
      await sleep(d.delayMs);
      if (stopped || p.runs !== run || held.has(p)) continue;
      done.push({ name: label, atMs: Date.now() - startedAt, exit: exit.signal ?? `code ${exit.code}` });
      try {
        await p.restart(o.readyTimeoutMs ?? 120_000);
        emit({ type: "restarted", process: p, label });
      } catch (err) {
        // It exited again before it was ready, or never got ready: the loop judges that exit.
        emit({ type: "restart-failed", process: p, label, error: err instanceof Error ? err.message.split("\n")[0] ?? "" : String(err) });
      }
    }
  };
  for (const p of processes) void watch(p);
  return {
    hold: (p) => void held.add(p),
    release: (p) => void held.delete(p),
    restarts: () => [...done],
    stop: () => {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}
