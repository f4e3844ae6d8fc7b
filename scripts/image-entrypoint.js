// The container image's entry point: `flotilla` from the production bundles (scripts/bundle.ts):
// `flotilla agent …` loads the agent's bundle alone, any other command the whole of `flotilla`'s.
// It also restores the default action of SIGTERM and SIGINT: Node.js as PID 1 gets none for them,
// so a signal that arrives before the command installs its own handlers (shared/signals.ts, once
// it has started) would be ignored, and the container would stop only by SIGKILL after its grace
// period. This listener exits as the default action would, unless the command handles the signal
// itself.
import { constants } from "node:os";

for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    if (process.listenerCount(signal) === 1) process.exit(128 + constants.signals[signal]);
  });
}
await import(process.argv[2] === "agent" ? "./agent.mjs" : "./flotilla.mjs");
