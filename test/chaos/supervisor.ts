// What kubelet does for the Flotilla pods (restartPolicy: Always): a control-plane replica or an
// agent that exits by itself is started again after a short back-off. A replica exits on purpose
// when it loses the lease (so a fresh process competes); without this it would stay down for the
// rest of the run. A process the fault injector holds (killed on purpose, restarted by it) is left
// to the injector.
import type { ManagedProcess } from "../env/managed-process.ts";

export interface Supervisor {
  /** The injector takes a process over until release(). */
  hold(p: ManagedProcess): void;
  release(p: ManagedProcess): void;
  /** Every restart made, in order: which process, when (offset from start), its exit. */
  restarts(): { name: string; atMs: number; exit: string }[];
  stop(): void;
}

export const RESTART_BACKOFF_MS = 1_000;

export function supervise(processes: ManagedProcess[], labels: Map<ManagedProcess, string>, startedAt: number): Supervisor {
  const held = new Set<ManagedProcess>();
  const done: { name: string; atMs: number; exit: string }[] = [];
  let stopped = false;
  const watch = (p: ManagedProcess): void => {
    const run = p.runs;
    void p.exited.then(async (e) => {
      await new Promise((r) => setTimeout(r, RESTART_BACKOFF_MS));
      if (stopped) return;
      if (held.has(p) || p.runs !== run) return watch(p);
      done.push({ name: labels.get(p) ?? p.name, atMs: Date.now() - startedAt, exit: e.signal ?? `code ${e.code}` });
      await p.restart(120_000).catch(() => undefined);
      watch(p);
    });
  };
  for (const p of processes) watch(p);
  return {
    hold: (p) => void held.add(p),
    release: (p) => void held.delete(p),
    restarts: () => [...done],
    stop: () => {
      stopped = true;
    },
  };
}
