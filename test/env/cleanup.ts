/**
 * Last-resort cleanup for test processes: whatever a test or the CLI started is ended, and its
 * temp dirs removed, when this process exits for any reason it can observe (normal exit, an
 * uncaught error, SIGINT, SIGTERM, SIGHUP). Children are also started with a parent-death signal,
 * so even a SIGKILL of this process takes them down (see managed-process.ts).
 */
type SyncCleanup = () => void;
type Shutdown = (signal: NodeJS.Signals) => Promise<void>;

const cleanups = new Set<SyncCleanup>();
let shutdown: Shutdown | undefined;
let installed = false;

const signalCodes: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

function install(): void {
  if (installed) return;
  installed = true;
  process.on("exit", runAll);
  for (const signal of Object.keys(signalCodes) as NodeJS.Signals[]) {
    process.on(signal, () => {
      const code = signalCodes[signal] ?? 1;
      if (shutdown === undefined) process.exit(code);
      const graceful = shutdown;
      shutdown = undefined; // a second signal exits at once
      graceful(signal).then(
        () => process.exit(0),
        () => process.exit(code),
      );
    });
  }
}

function runAll(): void {
  for (const fn of [...cleanups].reverse()) {
    try {
      fn();
    } catch {
      // best effort: keep cleaning the rest
    }
  }
  cleanups.clear();
}

/** Registers a synchronous cleanup; returns a function that unregisters it. */
export function onExit(fn: SyncCleanup): () => void {
  install();
  cleanups.add(fn);
  return () => cleanups.delete(fn);
}

/**
 * Makes SIGINT/SIGTERM/SIGHUP run an orderly shutdown first (for long-running commands); the
 * process exits 0 when it completes. Without it, a signal exits at once and the sync cleanups run.
 */
export function onShutdownSignal(fn: Shutdown): void {
  install();
  shutdown = fn;
}
