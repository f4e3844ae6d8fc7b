// The local fleet command (README's first command, DESIGN §10), run as a real process.
import assert from "node:assert/strict";
import https from "node:https";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { AppsV1Api, CoreV1Api, CustomObjectsApi, KubeConfig } from "@kubernetes/client-node";
import { resolveAt } from "./dns-client.ts";
import { waitFor } from "./wait.ts";
import { isProcessAlive } from "./managed-process.ts";

const cli = fileURLToPath(new URL("./cli.ts", import.meta.url));

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];
const dirs: string[] = [];
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

function run(args: string[], env: NodeJS.ProcessEnv = {}): Run {
  const child = spawn(process.execPath, [cli, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout?.setEncoding("utf8").on("data", (s: string) => (out += s));
  child.stderr?.setEncoding("utf8").on("data", (s: string) => (err += s));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exit };
}

async function stateDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "flotilla-state-"));
  dirs.push(d);
  return d;
}

async function readPids(state: string): Promise<number[]> {
  const dir = join(state, "pids");
  const files = await readdir(dir);
  return Promise.all(files.map(async (f) => Number((await readFile(join(dir, f), "utf8")).trim())));
}

function kubeconfig(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}
const memberConfig = (state: string) => kubeconfig(join(state, "member1.kubeconfig"));
const controlConfig = (state: string) => kubeconfig(join(state, "control.kubeconfig"));

async function untilReady(r: Run): Promise<void> {
  await Promise.race([
    waitFor(async () => r.stdout().includes("flotilla: ready\n"), { what: "flotilla: ready", timeoutMs: 240_000 }),
    r.exit.then((e) => {
      throw new Error(`up exited early (${e.code}): ${r.stderr()}`);
    }),
  ]);
}

function httpsGet(url: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca, servername: "localhost" }, (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (d: string) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on("error", reject);
  });
}

async function pidOf(state: string, name: string): Promise<number> {
  return Number((await readFile(join(state, "pids", `${name}.pid`), "utf8")).trim());
}

/** Runs `npm run env -- <action> <name>` against the fleet; returns its exit and output. */
async function act(state: string, action: "restart" | "stop", name: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = run([action, name], { FLOTILLA_STATE_DIR: state });
  const e = await r.exit;
  return { code: e.code, stdout: r.stdout(), stderr: r.stderr() };
}

describe("flotilla local fleet (test/env/cli.ts up), one member", () => {
  let state = "";
  let up: Run;
  let pids: number[] = [];
  before(async () => {
    state = await stateDir();
    up = run(["up"], { FLOTILLA_STATE_DIR: state, FLOTILLA_MEMBERS: "1" });
    await untilReady(up);
  });

  it("brings up the clusters, the control plane, the agents, the DNS and the sample app", async () => {
    for (const name of ["control", "member1"]) {
      assert.ok(existsSync(join(state, `${name}.kubeconfig`)), `${name}.kubeconfig written`);
    }
    const pidFiles = (await readdir(join(state, "pids"))).sort();
    assert.deepEqual(pidFiles, [
      "agent-member1.pid",
      "control-etcd.pid",
      "control-kube-apiserver.pid",
      "control-kube-controller-manager.pid",
      "control-plane.pid",
      "coredns.pid",
      "dns-etcd.pid",
      "external-dns.pid",
      "member1-etcd.pid",
      "member1-kube-apiserver.pid",
      "member1-kube-controller-manager.pid",
      "member1-kube-scheduler.pid",
      "member1-kwok.pid",
    ]);
    pids = await readPids(state);
    for (const pid of pids) assert.ok(isProcessAlive(pid), `pid ${pid} runs`);

    const kc = memberConfig(state);
    const nodes = await kc.makeApiClient(CoreV1Api).listNode();
    assert.equal(nodes.items.length, 2);

    // The sample app (test/env/sample/web.yaml) runs in the member, and the control cluster's
    // template shows the fleet sum: 2 ready replicas from the one member.
    const inMember = await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: "web", namespace: "demo" });
    assert.ok(
      inMember.status?.conditions?.some((c) => c.type === "Available" && c.status === "True"),
      `member1 Deployment demo/web Available: ${JSON.stringify(inMember.status)}`,
    );
    const template = await controlConfig(state).makeApiClient(AppsV1Api).readNamespacedDeployment({ name: "web", namespace: "demo" });
    assert.equal(template.status?.readyReplicas, 2, `control Deployment demo/web status: ${JSON.stringify(template.status)}`);

    // Multi-cluster DNS: the server named in <state>/dns-server answers the sample's global name
    // with member1's load-balancer address, as up's hint says.
    const dnsServer = (await readFile(join(state, "dns-server"), "utf8")).trim();
    assert.match(up.stderr(), new RegExp(`dig @127\\.0\\.0\\.1 -p ${dnsServer.split(":")[1]} \\+short web\\.demo\\.fleet\\.svc\\.example\\.com`));
    const member1Service = await kc.makeApiClient(CoreV1Api).readNamespacedService({ name: "web", namespace: "demo" });
    const lb = member1Service.status?.loadBalancer?.ingress?.map((i) => i.ip ?? "") ?? [];
    assert.equal(lb.length, 1, `member1 Service demo/web has a load-balancer address: ${JSON.stringify(member1Service.status)}`);
    assert.deepEqual(await resolveAt(dnsServer, "web.demo.fleet.svc.example.com", "A"), lb);

    // Multi-cluster services: the sample's ServiceExport, propagated with its Service, is imported
    // in the member with an IP of its own.
    const imports = kc.makeApiClient(CustomObjectsApi);
    const imported = await waitFor(
      async () => {
        const o = (await imports.getNamespacedCustomObject({ group: "multicluster.x-k8s.io", version: "v1beta1", namespace: "demo", plural: "serviceimports", name: "web" }).catch(() => undefined)) as { spec?: { type?: string; ips?: string[] } } | undefined;
        return (o?.spec?.ips?.length ?? 0) > 0 ? o : undefined;
      },
      { what: "the ServiceImport demo/web in member1", timeoutMs: 30_000 },
    );
    assert.equal(imported.spec?.type, "ClusterSetIP");

    // The dashboard: its address in <state>/dashboard-url and in up's hints, its page served over
    // TLS with the test CA's certificate.
    const dashboard = (await readFile(join(state, "dashboard-url"), "utf8")).trim();
    assert.match(dashboard, /^https:\/\/127\.0\.0\.1:\d+\/$/);
    assert.ok(up.stderr().includes(`dashboard at ${dashboard}`), "up prints the dashboard's address");
    const page = await httpsGet(dashboard, await readFile(join(state, "flotilla-certs", "ca.crt"), "utf8"));
    assert.equal(page.status, 200);
    assert.match(page.body, /<flotilla-app>/);
  });

  it("reports a process killed from outside and leaves it down; restart starts it again in place", async () => {
    const kc = memberConfig(state);
    const before = await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: "web", namespace: "demo" });
    for (const name of ["agent-member1", "member1-kube-apiserver"]) {
      const pid = await pidOf(state, name);
      process.kill(pid, "SIGKILL");
      await waitFor(async () => up.stderr().includes(`${name} exited (signal SIGKILL); the rest keep running`), { what: `up to report ${name}'s exit`, timeoutMs: 10_000 });
      assert.equal(up.child.exitCode, null, "up keeps running");
      // A person's kill -9 is not an exit of its own: no restart, even after the first back-off.
      await new Promise((r) => setTimeout(r, 1_500));
      assert.ok(!up.stderr().includes(`${name} exited by itself`), "not restarted by up");
      assert.equal(await pidOf(state, name), pid, "its pid file still names the killed run");
      const restarted = await act(state, "restart", name);
      assert.equal(restarted.code, 0, restarted.stderr);
      const newPid = Number(/restarted \(pid (\d+)\)/.exec(restarted.stdout)?.[1]);
      assert.ok(newPid > 0 && newPid !== pid && isProcessAlive(newPid), `${name} runs again: ${restarted.stdout}`);
      assert.equal(await pidOf(state, name), newPid, "its pid file names the new run");
    }
    // The member's apiserver came back on the same port with the same data.
    const again = await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: "web", namespace: "demo" });
    assert.equal(again.metadata?.uid, before.metadata?.uid, "the same Deployment, read through the same kubeconfig");
  });

  it("stop keeps an agent down (no restart) until restart", async () => {
    const pid = await pidOf(state, "agent-member1");
    const stopped = await act(state, "stop", "agent-member1");
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stdout, /agent-member1 stopped; it stays down until: npm run env -- restart agent-member1/);
    assert.ok(!isProcessAlive(pid), "the agent's process is gone");
    await new Promise((r) => setTimeout(r, 2_500));
    assert.ok(!up.stderr().includes("agent-member1 exited by itself"), "not restarted");
    const again = await act(state, "stop", "agent-member1");
    assert.equal(again.code, 1);
    assert.match(again.stderr, /agent-member1 is not running/);
    const restarted = await act(state, "restart", "agent-member1");
    assert.equal(restarted.code, 0, restarted.stderr);
    assert.ok(isProcessAlive(await pidOf(state, "agent-member1")));
  });

  it("restarts a control plane that exits by itself (frozen past its lease's renew deadline), and the fleet works again", async () => {
    const pid = await pidOf(state, "control-plane");
    // Frozen longer than the lease (4 s, renew deadline 3 s): on waking it exits 1 on purpose.
    process.kill(pid, "SIGSTOP");
    await new Promise((r) => setTimeout(r, 6_000));
    process.kill(pid, "SIGCONT");
    await waitFor(async () => /control-plane exited by itself \(code 1\) after [\d.]+ s; restarting it in 1 s \(the delay doubles, up to 30 s/.test(up.stderr()), {
      what: `up to restart the control plane; stderr:\n${up.stderr().slice(-2000)}`,
      timeoutMs: 30_000,
    });
    await waitFor(async () => (await pidOf(state, "control-plane")) !== pid, { what: "a new control-plane pid file", timeoutMs: 60_000 });
    assert.ok(isProcessAlive(await pidOf(state, "control-plane")), "the new run is alive");
    // The fleet works again: a ConfigMap and its policy created now reach the member.
    const control = controlConfig(state);
    await control.makeApiClient(CoreV1Api).createNamespacedConfigMap({ namespace: "demo", body: { metadata: { name: "after-restart" }, data: { k: "v" } } });
    await control.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group: "flotilla.dev",
      version: "v1alpha1",
      namespace: "demo",
      plural: "propagationpolicies",
      body: { apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "after-restart", namespace: "demo" }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "after-restart" }] } },
    });
    const member = memberConfig(state).makeApiClient(CoreV1Api);
    await waitFor(async () => (await member.readNamespacedConfigMap({ name: "after-restart", namespace: "demo" }).catch(() => undefined))?.data?.k === "v", {
      what: "ConfigMap demo/after-restart in member1",
      timeoutMs: 60_000,
    });
  });

  it("refuses an unknown process, a state dir with no fleet, and a second up on the same state dir", async () => {
    const unknown = await act(state, "restart", "nope");
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no process named "nope"; the fleet has: .*agent-member1/);
    const elsewhere = run(["restart", "agent-member1", "--state-dir", await stateDir()]);
    assert.equal((await elsewhere.exit).code, 1);
    assert.match(elsewhere.stderr(), /no fleet runs from .*npm run up/);

    const second = run(["up"], { FLOTILLA_STATE_DIR: state });
    const secondExit = await second.exit;
    assert.equal(secondExit.code, 1);
    assert.match(second.stderr(), /a fleet already runs from .* \(pid \d+\); stop it first/);
  });

  it("stops everything on SIGTERM and removes what it wrote", async () => {
    const running = await readPids(state);
    up.child.kill("SIGTERM");
    const exit = await up.exit;
    assert.equal(exit.code, 0, up.stderr());
    for (const pid of [...pids, ...running]) assert.ok(!isProcessAlive(pid), `pid ${pid} stopped`);
    assert.deepEqual(await readdir(state), [], "kubeconfigs, pid files, certificates, logs and cluster data removed");
  });
});

describe("flotilla local fleet (test/env/cli.ts up)", () => {
  it("takes every process (clusters, control plane, agents, DNS) down with it when it is killed outright", async () => {
    const state = await stateDir();
    const up = run(["up", "--members", "1"], { FLOTILLA_STATE_DIR: state });
    await untilReady(up);
    const pids = await readPids(state);
    assert.equal(pids.length, 13, "8 cluster processes, the control plane, 1 agent, and the DNS (etcd, CoreDNS, ExternalDNS)");
    up.child.kill("SIGKILL");
    await up.exit;
    await waitFor(async () => pids.every((p) => !isProcessAlive(p)), {
      what: "every process to exit after its parent was killed",
      timeoutMs: 10_000,
    });
  });

  it("refuses a bad member count with exit code 2 and says why", async () => {
    const r = run(["up", "--members", "0"]);
    const exit = await r.exit;
    assert.equal(exit.code, 2);
    assert.match(r.stderr(), /--members must be a whole number from 1 to 20, not "0"/);
    assert.match(r.stderr(), /usage: node test\/env\/cli.ts/);
  });

  it("refuses an unknown command with exit code 2", async () => {
    const r = run(["launch"]);
    assert.equal((await r.exit).code, 2);
    assert.match(r.stderr(), /unknown command "launch"/);
  });
});
