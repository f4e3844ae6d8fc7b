// What `up` does for a ready fleet (DESIGN §10), like a cluster would: a process that dies is
// reported and the rest keep running. A control-plane replica or an agent that ends by itself (a
// non-zero exit code or a crash signal; a replica that lost its lease, or woke past its renew
// deadline, exits 1 on purpose) is started again in place with kubelet's crash-loop back-off
// (1 s doubling to 30 s, reset after a minute up). One a person stopped (kill -9, kill, Ctrl-C on
// it, `npm run env -- stop`) stays down, so a demo can watch failover, until
// `npm run env -- restart <process>`. Cluster and DNS processes are only reported, never
// restarted by themselves.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { restartByName, serveFleetControl, stopByName } from "./fleet-control.ts";
import type { ManagedProcess, ProcessExit } from "./managed-process.ts";
import { DEFAULT_BACKOFF, describeExit, seconds } from "./restart-policy.ts";
import { supervise, type SupervisorEvent } from "./supervisor.ts";

export interface FleetCareOptions {
  state: string;
  /** Every process of the fleet, by the names of their pid files. */
  processes: ManagedProcess[];
  /** The ones restarted when they end by themselves: the control plane and the agents. */
  supervised: ManagedProcess[];
  /** Pid files written go here (`up` removes them when it stops). */
  written: string[];
  /** True once `up` is stopping: nothing is reported or restarted then. */
  stopping(): boolean;
}

/** Writes <state>/pids/<name>.pid for each process's current run. */
export async function writePidFiles(pidsDir: string, processes: ManagedProcess[], written: string[]): Promise<void> {
  for (const p of processes) {
    const pidFile = join(pidsDir, `${p.name}.pid`);
    await writeFile(pidFile, `${p.pid}\n`);
    written.push(pidFile);
  }
}

/** The report of an exit that is not followed by a restart, with the process's last log lines. */
function downLine(p: ManagedProcess, exit: ProcessExit): string {
  return `flotilla: ${p.name} exited (${describeExit(exit)}); the rest keep running. Start it again with: npm run env -- restart ${p.name}\nflotilla: last log lines of ${p.name}:\n${p.tail(10)}`;
}

/** The one line said for each restart. */
export function restartLine(e: Extract<SupervisorEvent, { type: "restarting" }>, logFile: string): string {
  return `flotilla: ${e.label} exited by itself (${describeExit(e.exit)}) after ${seconds(e.ranForMs)}; restarting it in ${seconds(e.delayMs)} (the delay doubles, up to ${seconds(DEFAULT_BACKOFF.maxMs)}, while it keeps exiting; its log: ${logFile})`;
}

/** Starts watching the fleet and serving `restart`/`stop`; close() ends both. */
export async function careForFleet(o: FleetCareOptions): Promise<{ close(): Promise<void> }> {
  const pidsDir = join(o.state, "pids");
  const stopRequested = new Set<ManagedProcess>();
  const quiet = (p: ManagedProcess) => o.stopping() || stopRequested.has(p);
  const onEvent = (e: SupervisorEvent) => {
    if (quiet(e.process)) return;
    if (e.type === "restarting") console.error(restartLine(e, e.process.logFile));
    else if (e.type === "restart-failed") console.error(`flotilla: ${e.label} did not come back: ${e.error}`);
    else if (e.type === "left-down") console.error(downLine(e.process, e.exit));
    else void writePidFiles(pidsDir, [e.process], o.written);
  };
  const supervisor = supervise(o.supervised, { policy: { when: "own-exit", ...DEFAULT_BACKOFF }, onEvent });
  // The others are only reported, once per run.
  const reportExit = (p: ManagedProcess) => {
    const run = p.runs;
    void p.exited.then((exit) => {
      if (!quiet(p) && p.runs === run) console.error(downLine(p, exit));
    });
  };
  for (const p of o.processes) if (!o.supervised.includes(p)) reportExit(p);
  const control = await serveFleetControl(o.state, (action, name) =>
    action === "stop"
      ? stopByName(o.processes, name, (p) => {
          stopRequested.add(p);
          supervisor.hold(p);
        })
      : restartByName(o.processes, name, async (p) => {
          stopRequested.delete(p);
          supervisor.release(p);
          await writePidFiles(pidsDir, [p], o.written);
          if (!o.supervised.includes(p)) reportExit(p);
        }),
  );
  return {
    close: async () => {
      supervisor.stop();
      await control.close();
    },
  };
}
