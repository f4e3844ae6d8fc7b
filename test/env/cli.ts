// The test environment as a command for people: `node test/env/cli.ts help`.
import { execFile } from "node:child_process";
import { rmSync } from "node:fs";
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { AppsV1Api, type V1Deployment } from "@kubernetes/client-node";
import { ensureBinaries } from "./binaries.ts";
import { onExit, onShutdownSignal } from "./cleanup.ts";
import { type Fleet, startFleet } from "./fleet.ts";
import { type Flotilla, startFlotilla } from "./flotilla.ts";
import { type DnsServer, startDns } from "./dns.ts";
import { resolveAt } from "./dns-client.ts";
import { parseRestartOptions, parseUpOptions, type UpOptions, UsageError } from "./cli-options.ts";
import { requestRestart, restartByName, serveFleetControl } from "./fleet-control.ts";
import { isProcessAlive, type ManagedProcess } from "./managed-process.ts";
import { waitFor } from "./wait.ts";

/** The sample app `up` applies to the control cluster (see the comment at its top). */
const sampleFile = fileURLToPath(new URL("./sample/web.yaml", import.meta.url));
const sampleNamespace = "demo";
const sampleDeployment = "web";
const sampleReplicasPerMember = 2;
/** The name the sample's ServiceDNSRecord publishes for every member (Domain object "fleet", zone example.com). */
const sampleGlobalName = "web.demo.fleet.svc.example.com";

const usage = `usage: node test/env/cli.ts <command> [flags]

commands:
  restart   start a process of the running fleet again, in place (same ports, same data), e.g.
            after it crashed or was killed: restart <process>, named as its pid file in
            <state>/pids/ (agent-member1, control-plane, member1-kube-apiserver, control-etcd, …)
  bin-dir   build the pinned cluster binaries if the cache lacks them, then print their directory
  up        run the local fleet until SIGINT/SIGTERM: the control cluster, N members, the Flotilla
            control plane, one agent per member, ExternalDNS and CoreDNS (multi-cluster DNS), and
            the sample app (test/env/sample/web.yaml); admin kubeconfigs in
            <state>/<cluster>.kubeconfig, pid files in <state>/pids/, the DNS server's host:port in
            <state>/dns-server; prints "flotilla: ready" once the sample runs in every member and
            its DNS name answers with every member's load-balancer address
  help      print this text

flags of up (and --state-dir of restart):
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
    case "restart": {
      const o = parseRestartOptions(rest, process.env, process.cwd());
      const answer = await requestRestart(resolve(o.stateDir), o.process);
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
  const written: string[] = [lock, pidsDir, join(state, "flotilla-certs"), join(state, "flotilla-logs"), join(state, "kubectl-cache"), join(state, "dns-server")];
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
      await flotilla?.stop(); // agents, then the control plane
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
    fleet = await startFleet({ members: opts.members, root: state });
    for (const cluster of fleet.all()) {
      const kubeconfig = join(state, `${cluster.name}.kubeconfig`);
      await copyFile(cluster.kubeconfigPath, kubeconfig);
      written.push(kubeconfig);
      await writePidFiles(pidsDir, cluster.processes, written);
      console.error(`flotilla: ${cluster.name} ${cluster.server} kubeconfig ${kubeconfig}`);
    }

    console.error("flotilla: starting the control plane and the agents");
    flotilla = await startFlotilla(fleet, { heartbeatInterval: "2s", clusterFailureThreshold: "30s" });
    await writePidFiles(pidsDir, flotilla.processes(), written);

    console.error("flotilla: starting ExternalDNS and CoreDNS (multi-cluster DNS)");
    dns = await startDns({ dir: join(state, "dns"), controlKubeconfigPath: join(state, "control.kubeconfig") });
    await writeFile(join(state, "dns-server"), `${dns.server}\n`);
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

  // Once ready, a process that dies is reported and the rest keep running (DESIGN §10): a killed
  // agent or replica is how one watches failover. `restart <process>` starts it again.
  const live = processes;
  control = await serveFleetControl(state, (name) =>
    restartByName(live, name, async (p) => {
      await writePidFiles(pidsDir, [p], written);
      reportExit(p, () => stopping);
    }),
  );
  for (const p of processes) reportExit(p, () => stopping);
  printHints(state, fleet, flotilla, dns);
  console.log("flotilla: ready");
  return forever();
}

/** Says on stderr when this run of p exits, unless the fleet is stopping or p was restarted. */
function reportExit(p: ManagedProcess, stopping: () => boolean): void {
  const run = p.runs;
  void p.exited.then((e) => {
    if (stopping() || p.runs !== run) return;
    const how = e.signal === null ? `code ${e.code}` : `signal ${e.signal}`;
    console.error(`flotilla: ${p.name} exited (${how}); the rest keep running. Start it again with: npm run env -- restart ${p.name}\nflotilla: last log lines of ${p.name}:\n${p.tail(10)}`);
  });
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

async function writePidFiles(pidsDir: string, processes: ManagedProcess[], written: string[]): Promise<void> {
  for (const p of processes) {
    const pidFile = join(pidsDir, `${p.name}.pid`);
    await writeFile(pidFile, `${p.pid}\n`);
    written.push(pidFile);
  }
}

/** `kubectl apply --server-side` of the sample, as a user would run it; its output goes to stderr. */
async function applySample(kubeconfig: string, cacheDir: string): Promise<void> {
  const kubectl = join(await ensureBinaries(), "kubectl");
  const args = ["--kubeconfig", kubeconfig, "--cache-dir", cacheDir, "apply", "--server-side", "-f", sampleFile];
  try {
    const { stdout } = await promisify(execFile)(kubectl, args, { encoding: "utf8" });
    for (const line of stdout.trimEnd().split("\n")) console.error(`  ${line}`);
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`kubectl apply of ${sampleFile} failed: ${e.stderr?.trim() || e.message}`, { cause: err });
  }
}

/**
 * Until the sample's Deployment is Available in every member and its template in the control
 * cluster shows the fleet sum (Flotilla writes the members' status back into it).
 */
async function waitForSample(fleet: Fleet): Promise<void> {
  const read = (api: AppsV1Api) => api.readNamespacedDeployment({ name: sampleDeployment, namespace: sampleNamespace });
  const available = (d: V1Deployment) => d.status?.conditions?.some((c) => c.type === "Available" && c.status === "True") === true;
  const members = fleet.members.map((m) => ({ name: m.name, api: m.kubeConfig().makeApiClient(AppsV1Api) }));
  const control = fleet.control.kubeConfig().makeApiClient(AppsV1Api);
  const want = sampleReplicasPerMember * fleet.members.length;
  let waitingOn = "";
  await waitFor(
    async () => {
      for (const m of members) {
        waitingOn = `Deployment ${sampleNamespace}/${sampleDeployment} Available in ${m.name}`;
        if (!available(await read(m.api))) return false;
      }
      waitingOn = `status.readyReplicas ${want} on the control cluster's Deployment ${sampleNamespace}/${sampleDeployment}`;
      return (await read(control)).status?.readyReplicas === want;
    },
    { what: "the sample app", timeoutMs: 180_000, intervalMs: 250 },
  ).catch((err: unknown) => {
    throw new Error(`${err instanceof Error ? err.message : String(err)} (still waiting for ${waitingOn})`, { cause: err });
  });
}

/** Until the sample's global name answers with one load-balancer address per member, as a DNS client sees it. */
async function waitForSampleName(fleet: Fleet, server: string): Promise<void> {
  let last: string[] = [];
  await waitFor(
    async () => {
      last = await resolveAt(server, sampleGlobalName, "A").catch(() => []);
      return last.length === fleet.members.length;
    },
    { what: `${sampleGlobalName} at ${server}`, timeoutMs: 120_000, intervalMs: 250 },
  ).catch((err: unknown) => {
    throw new Error(`${err instanceof Error ? err.message : String(err)} (last answer: ${JSON.stringify(last)}; want one address per member)`, { cause: err });
  });
}

function printHints(state: string, fleet: Fleet, flotilla: Flotilla, dns: DnsServer): void {
  const control = join(state, "control.kubeconfig");
  const first = fleet.members[0]?.name ?? "member1";
  console.error(
    [
      `flotilla: kubeconfigs in ${state}/: control.kubeconfig (templates and policies), ${fleet.members.map((m) => `${m.name}.kubeconfig`).join(", ")}`,
      `flotilla: pid files in ${join(state, "pids")}/, control-plane and agent logs in ${flotilla.logsDir}/, cluster logs in ${join(state, "clusters")}/<cluster>/`,
      "flotilla: try",
      `  kubectl --kubeconfig ${control} get deploy -n ${sampleNamespace} ${sampleDeployment}    # the fleet-wide sum`,
      `  kubectl --kubeconfig ${control} get rb -n ${sampleNamespace}    # one ResourceBinding per template`,
      `  kubectl --kubeconfig ${control} get clusters`,
      `  kubectl --kubeconfig ${join(state, `${first}.kubeconfig`)} get deploy,svc,cm -n ${sampleNamespace}`,
      `  FLOTILLA_STATE_DIR=${state} npx flotillactl get clusters    # also: get bindings -A, describe deploy/${sampleDeployment} -n ${sampleNamespace}, render|diff deploy/${sampleDeployment} -n ${sampleNamespace} --cluster ${first}`,
      `flotilla: multi-cluster DNS at ${dns.server} (also in ${join(state, "dns-server")}); the sample's names:`,
      `  dig @127.0.0.1 -p ${dns.port} +short ${sampleGlobalName}    # every member's load-balancer address`,
      `  dig @127.0.0.1 -p ${dns.port} +short web.demo.fleet.svc.eu.example.com    # a region; …svc.eu-1.eu.example.com a zone`,
      `  node -e 'const r=new (require("node:dns").promises.Resolver)();r.setServers(["${dns.server}"]);r.resolve4("${sampleGlobalName}").then(console.log)'    # without dig`,
      `  kubectl --kubeconfig ${control} get servicednsrecord -n ${sampleNamespace} ${sampleDeployment} -o yaml    # status.dns per cluster; the DNSEndpoint of the same name`,
      "flotilla: Ctrl-C stops everything and removes what it wrote",
    ].join("\n"),
  );
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
