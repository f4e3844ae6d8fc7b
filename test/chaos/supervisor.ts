// The chaos run's (and the benchmarks') supervisor: test/env/supervisor.ts with kubelet's
// restartPolicy Always, so every exit of a control-plane replica or an agent that the fault
// injector does not hold is started again with back-off (1 s doubling to 30 s while it keeps
// failing), and the report lists each restart.
import type { ManagedProcess } from "../env/managed-process.ts";
import { type Supervisor, supervise as superviseProcesses } from "../env/supervisor.ts";

export type { Supervisor };

export function supervise(processes: ManagedProcess[], labels: Map<ManagedProcess, string>, startedAt: number): Supervisor {
  return superviseProcesses(processes, { labels, startedAt });
}
