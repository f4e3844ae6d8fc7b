// The test environment as a command for people: `node test/env/cli.ts help`.
import { copyFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ensureBinaries } from "./binaries.ts";
import { onShutdownSignal } from "./cleanup.ts";
import { type Fleet, startFleet } from "./fleet.ts";
import { parseUpOptions, type UpOptions, UsageError } from "./cli-options.ts";
import { isProcessAlive } from "./managed-process.ts";

const usage = `usage: node test/env/cli.ts <command> [flags]

commands:
  bin-dir   build the pinned cluster binaries if the cache lacks them, then print their directory
  up        run the local fleet until SIGINT/SIGTERM: the control cluster and N members, admin
            kubeconfigs in <state>/<cluster>.kubeconfig, pid files in <state>/pids/; prints
            "flotilla: ready" once every cluster is ready
  help      print this text

flags of up:
  --members N       number of members, member1 … memberN (default: $FLOTILLA_MEMBERS, else 2)
  --state-dir DIR   where kubeconfigs, pid files and cluster data go
                    (default: $FLOTILLA_STATE_DIR, else .flotilla/ in the working directory)

environment:
  FLOTILLA_MEMBERS, FLOTILLA_STATE_DIR   as above
  FLOTILLA_BIN_DIR     use pre-built binaries from this directory instead of building them
  FLOTILLA_CACHE_DIR   where built binaries are cached (default ~/.cache/flotilla)`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "bin-dir":
      console.log(await ensureBinaries());
      return 0;
    case "up":
      return up(parseUpOptions(rest, process.env, process.cwd()));
    case "help":
    case "--help":
    case "-h":
      console.log(usage);
      return 0;
    default:
      throw new UsageError(command === undefined ? "no command given" : `unknown command ${JSON.stringify(command)}`);
  }
}

async function up(opts: UpOptions): Promise<number> {
  const state = resolve(opts.stateDir);
  const pidsDir = join(state, "pids");
  const lock = join(state, "up.pid");
  await mkdir(pidsDir, { recursive: true });
  const holder = Number(await readFile(lock, "utf8").catch(() => "0"));
  if (holder > 0 && holder !== process.pid && isProcessAlive(holder)) {
    console.error(`flotilla: a fleet already runs from ${state} (pid ${holder}); stop it first`);
    return 1;
  }
  await writeFile(lock, String(process.pid));

  let fleet: Fleet | undefined;
  const written: string[] = [lock];
  const tearDown = async () => {
    await fleet?.stop();
    await Promise.all(written.map((f) => rm(f, { force: true })));
    await rm(pidsDir, { recursive: true, force: true });
  };
  let stopping = false;
  onShutdownSignal(async (signal) => {
    stopping = true;
    console.error(`flotilla: ${signal}: stopping`);
    await tearDown();
    console.error("flotilla: stopped");
  });

  console.error(`flotilla: starting the control cluster and ${opts.members} member(s) in ${state}`);
  try {
    fleet = await startFleet({ members: opts.members, root: state });
  } catch (err) {
    await tearDown();
    throw err;
  }
  for (const cluster of fleet.all()) {
    const kubeconfig = join(state, `${cluster.name}.kubeconfig`);
    await copyFile(cluster.kubeconfigPath, kubeconfig);
    written.push(kubeconfig);
    for (const p of cluster.processes) {
      const pidFile = join(pidsDir, `${p.name}.pid`);
      await writeFile(pidFile, `${p.pid}\n`);
      written.push(pidFile);
    }
    console.error(`flotilla: ${cluster.name} ${cluster.server} kubeconfig ${kubeconfig}`);
  }
  console.log("flotilla: ready");
  // Run until a signal; if a cluster process dies, say so and stop everything.
  const died = await Promise.race(fleet.all().flatMap((c) => c.processes.map((p) => p.exited.then(() => p))));
  // Processes exit because we are stopping them: the signal handler finishes and exits.
  if (stopping) return new Promise<number>(() => undefined);
  console.error(`flotilla: ${died.name} exited unexpectedly; last log lines:\n${died.tail()}`);
  await tearDown();
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      console.error(`flotilla: ${err.message}\n\n${usage}`);
      process.exit(2);
    }
    console.error(`flotilla: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
