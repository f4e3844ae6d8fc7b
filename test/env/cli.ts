// The test environment as a command for people: `node test/env/cli.ts help`.
import { rmSync } from "node:fs";
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { ensureBinaries } from "./binaries.ts";
import { onExit, onShutdownSignal } from "./cleanup.ts";
import { type Fleet, startFleet } from "./fleet.ts";
import { type Flotilla, startFlotilla } from "./flotilla.ts";
import { type DnsServer, startDns } from "./dns.ts";
import { parseRestartOptions, parseUpOptions, type UpOptions, UsageError } from "./cli-options.ts";
import { careForFleet, writePidFiles } from "./fleet-care.ts";
import { bindMemberApiGroups } from "./member-api-rbac.ts";
import { requestAction } from "./fleet-control.ts";
import { isProcessAlive, type ManagedProcess } from "./managed-process.ts";
import { applySample, printHints, sampleFile, waitForSample, waitForSampleName } from "./sample-app.ts";

const usage = `usage: node test/env/cli.ts <command> [flags]

commands:
  restart   start a process of the running fleet again, in place (same ports, same data), e.g.
            after it crashed or was killed: restart <process>, named as its pid file in
            <state>/pids/ (agent-member1, control-plane, member1-kube-apiserver, control-etcd, …)
  stop      stop a process of the running fleet (SIGTERM) and keep it down until restart, e.g.
            stop agent-member1 to watch member1 go NotReady
  bin-dir   build the pinned cluster binaries if the cache lacks them, then print their directory
  up        run the local fleet until SIGINT/SIGTERM: the control cluster, N members, the Flotilla
            control plane, one agent per member, ExternalDNS and CoreDNS (multi-cluster DNS), and
            the sample app (test/env/sample/web.yaml); admin kubeconfigs in
            <state>/<cluster>.kubeconfig, pid files in <state>/pids/, the DNS server's host:port in
            <state>/dns-server; prints "flotilla: ready" once the sample runs in every member and
            its DNS name answers with every member's load-balancer address. The control plane
            or an agent that exits by itself (non-zero code, crash signal) is started again after
            1 s, doubling to 30 s while it keeps exiting; one killed or stopped by a person stays
            down until restart
  help      print this text

flags of up (and --state-dir of restart and stop):
  --members N       number of members, member1 … memberN (default: $FLOTILLA_MEMBERS, else 2)
  --state-dir DIR   where kubeconfigs, pid files, certificates, logs and cluster data go
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
    case "restart":
    case "stop": {
      const o = parseRestartOptions(rest, process.env, process.cwd(), command);
      const answer = await requestAction(resolve(o.stateDir), command, o.process);
      (answer.status === 200 ? console.log : console.error)(`flotilla: ${answer.message}`);
      return answer.status === 200 ? 0 : 1;
    }
    case "help":
    case "--help":
    case "-h":
      console.log(usage);
      return 0;
    default:
      throw new UsageError(command === undefined ? "no command given" : `unknown command ${JSON.stringify(command)}`);
  }
}

/** Never settles: the shutdown handler owns the exit once a signal arrived. */
const forever = () => new Promise<number>(() => undefined);

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
  let flotilla: Flotilla | undefined;
  let dns: DnsServer | undefined;
  // Everything up writes in <state>; startFleet removes <state>/clusters itself. startFlotilla
  // puts its certificates and logs under the fleet root, which is <state>.
  const written: string[] = [lock, pidsDir, join(state, "flotilla-certs"), join(state, "flotilla-logs"), join(state, "kubectl-cache"), join(state, "dns-server"), join(state, "dashboard-url"), join(state, "member-api-url")];
  const removeWritten = () => {
    for (const f of written) rmSync(f, { recursive: true, force: true });
  };
  // Last resort (an uncaught error, a second signal): the processes' own exit hooks kill them.
  const unregister = onExit(removeWritten);
  let tearingDown: Promise<void> | undefined;
  let control: { close(): Promise<void> } = { close: async () => undefined };
  const tearDown = () =>
    (tearingDown ??= (async () => {
      await control.close();
      await dns?.stop(); // ExternalDNS, CoreDNS, their etcd; removes <state>/dns
      await flotilla?.stop(); // agents and the control plane, at once
      await fleet?.stop();
      await Promise.all(written.map((f) => rm(f, { recursive: true, force: true })));
      unregister();
    })());
  let stopping = false;
  onShutdownSignal(async (signal) => {
    stopping = true;
    console.error(`flotilla: ${signal}: stopping`);
    await tearDown();
    console.error("flotilla: stopped");
  });

  let anyExit: Promise<ManagedProcess>;
  let processes: ManagedProcess[];
  try {
    console.error(`flotilla: starting the control cluster and ${opts.members} member(s) in ${state}`);
    // People try any workload on the local fleet: its members run every default controller.
    fleet = await startFleet({ members: opts.members, root: state, allControllers: true });
    for (const cluster of fleet.all()) {
      const kubeconfig = join(state, `${cluster.name}.kubeconfig`);
      await copyFile(cluster.kubeconfigPath, kubeconfig);
      written.push(kubeconfig);
      await writePidFiles(pidsDir, cluster.processes, written);
      console.error(`flotilla: ${cluster.name} ${cluster.server} kubeconfig ${kubeconfig}`);
    }

    console.error("flotilla: starting the control plane and the agents");
    flotilla = await startFlotilla(fleet, { heartbeatInterval: "2s", clusterFailureThreshold: "30s", dashboard: true, memberApi: true });
    await writePidFiles(pidsDir, flotilla.processes(), written);
    // Each member's admin decides what Flotilla's callers may do there (docs/guides/member-api.md): here viewers read, admins do anything.
    await Promise.all(fleet.members.map((m) => bindMemberApiGroups(m.kubeconfigPath)));

    console.error("flotilla: starting ExternalDNS and CoreDNS (multi-cluster DNS)");
    dns = await startDns({ dir: join(state, "dns"), controlKubeconfigPath: join(state, "control.kubeconfig") });
    await writeFile(join(state, "dns-server"), `${dns.server}\n`);
    await writeFile(join(state, "dashboard-url"), `https://127.0.0.1:${flotilla.dashboardPort}/\n`);
    await writeFile(join(state, "member-api-url"), `https://127.0.0.1:${flotilla.memberApiPort}\n`);
    await writePidFiles(pidsDir, dns.processes, written);
    processes = [...fleet.all().flatMap((c) => c.processes), ...flotilla.processes(), ...dns.processes];
    anyExit = Promise.race(processes.map((p) => p.exited.then(() => p)));

    console.error(`flotilla: applying ${relative(process.cwd(), sampleFile) || sampleFile} to the control cluster`);
    await applySample(join(state, "control.kubeconfig"), join(state, "kubectl-cache"));
    const died = anyExit.then((p): never => {
      throw new Error(`${p.name} exited unexpectedly; last log lines:\n${p.tail()}`);
    });
    await Promise.race([waitForSample(fleet), died]);
    await Promise.race([waitForSampleName(fleet, dns.server), died]);
  } catch (err) {
    if (stopping) return forever();
    await printFlotillaLogTails(join(state, "flotilla-logs"));
    await tearDown();
    throw err;
  }
  if (stopping) return forever();

  // Once ready, the fleet is cared for as a cluster would be (fleet-care.ts): the control plane
  // or an agent that exits by itself is restarted with back-off; a process a person killed or
  // stopped is reported and stays down, and the rest keep running (DESIGN §10).
  control = await careForFleet({ state, processes, supervised: flotilla.processes(), written, stopping: () => stopping });
  printHints(state, fleet, flotilla, dns);
  console.log("flotilla: ready");
  return forever();
}

/** The last lines of the control plane's and agents' logs, before tearDown removes them. */
async function printFlotillaLogTails(logsDir: string): Promise<void> {
  const files = await readdir(logsDir).catch(() => []);
  for (const f of files.sort()) {
    const text = await readFile(join(logsDir, f), "utf8").catch(() => "");
    const tail = text.trimEnd().split("\n").slice(-10).join("\n");
    if (tail !== "") console.error(`flotilla: last lines of ${f}:\n${tail}`);
  }
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
