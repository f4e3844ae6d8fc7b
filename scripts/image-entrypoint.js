// The container image's entry point: `flotilla` with the default action of SIGTERM and SIGINT
// restored. Node.js as PID 1 gets no default action for them, so a signal that arrives before
// the command installs its own handlers (shared/signals.ts, once it has started) would be
// ignored, and the container would stop only by SIGKILL after its grace period. This listener
// exits as the default action would, unless the command handles the signal itself.
import { constants } from "node:os";

for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    if (process.listenerCount(signal) === 1) process.exit(128 + constants.signals[signal]);
  });
}
await import("/app/dist/bin/flotilla.js");
