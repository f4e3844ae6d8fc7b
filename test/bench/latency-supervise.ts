// Under heavy load a control-plane replica can miss its lease's renew deadline; it then exits on
// purpose (a fresh process competes). The benchmarks start it again as kubelet would
// (test/chaos/supervisor.ts, restartPolicy Always) and say so: a run with a restart measured the
// restart too.
import type { Flotilla } from "../env/flotilla.ts";
import { supervise } from "../chaos/supervisor.ts";

export interface BenchSupervisor {
  /** "" or " (restarted meanwhile: …)" for the restarts since the last call. */
  restartsSince(): string;
  stop(): void;
}

export function superviseFlotilla(flotilla: Flotilla): BenchSupervisor {
  const labels = new Map(flotilla.processes().map((p) => [p, p.name]));
  const supervisor = supervise([...labels.keys()], labels, Date.now());
  let seen = 0;
  return {
    restartsSince: () => {
      const all = supervisor.restarts();
      const fresh = all.slice(seen);
      seen = all.length;
      return fresh.length === 0 ? "" : ` (restarted meanwhile: ${fresh.map((r) => `${r.name} at ${(r.atMs / 1000).toFixed(1)} s after ${r.exit}`).join(", ")})`;
    },
    stop: () => supervisor.stop(),
  };
}
