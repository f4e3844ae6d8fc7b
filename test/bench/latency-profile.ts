// A preload for profiling the benchmarks' Flotilla processes (--cpu-prof is not allowed in
// NODE_OPTIONS, --import is; test/env passes the environment through to the processes it starts):
//   FLOTILLA_PROF_DIR=/tmp/prof NODE_OPTIONS=--import=./test/bench/latency-profile.ts npm run bench:propagate
// Each control plane and agent writes <role>-<pid>.cpuprofile there when it exits (a replica
// restarted by the bench writes one per run). FLOTILLA_BENCH_PRODUCTION_LEASE=1 also gives the
// control plane the product's default lease timings (15s/10s/2s) instead of test/env's 4s/3s/500ms,
// which a loaded 2-core machine misses (the replica then exits and is restarted mid-run).
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";

const role = /flotilla\.ts (control-plane|agent)\b/.exec(process.argv.join(" "))?.[1];
if (role === "control-plane" && process.env.FLOTILLA_BENCH_PRODUCTION_LEASE === "1") {
  const production: Record<string, string> = { "--leader-elect-lease-duration": "15s", "--leader-elect-renew-deadline": "10s", "--leader-elect-retry-period": "2s" };
  process.argv = process.argv.map((a) => {
    const flag = a.split("=")[0] as string;
    return flag in production ? `${flag}=${production[flag]}` : a;
  });
}
const dir = process.env.FLOTILLA_PROF_DIR;
if (role !== undefined && dir) {
  const who = role === "agent" ? `agent-${/--cluster-name=(\S+)/.exec(process.argv.join(" "))?.[1] ?? "?"}` : role;
  const session = new Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.start");
  // The in-process inspector answers synchronously, so the profile is written before the exit.
  process.on("exit", () => {
    session.post("Profiler.stop", (err, res) => {
      if (err === null) writeFileSync(join(dir, `${who}-${process.pid}.cpuprofile`), JSON.stringify(res.profile));
    });
  });
}
