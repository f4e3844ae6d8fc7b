// The local fleet command (README's first command, DESIGN §10), run as a real process.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import { AppsV1Api, CoreV1Api, KubeConfig } from "@kubernetes/client-node";
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

async function untilReady(r: Run): Promise<void> {
  await Promise.race([
    waitFor(async () => r.stdout().includes("flotilla: ready\n"), { what: "flotilla: ready", timeoutMs: 240_000 }),
    r.exit.then((e) => {
      throw new Error(`up exited early (${e.code}): ${r.stderr()}`);
    }),
  ]);
}

describe("flotilla local fleet (test/env/cli.ts up)", () => {
  it("brings up the clusters, the control plane, the agents and the sample app; stops on SIGTERM", async () => {
    const state = await stateDir();
    const up = run(["up"], { FLOTILLA_STATE_DIR: state, FLOTILLA_MEMBERS: "1" });
    await untilReady(up);

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
    const pids = await readPids(state);
    for (const pid of pids) assert.ok(isProcessAlive(pid), `pid ${pid} runs`);

    const kc = new KubeConfig();
    kc.loadFromFile(join(state, "member1.kubeconfig"));
    const nodes = await kc.makeApiClient(CoreV1Api).listNode();
    assert.equal(nodes.items.length, 2);

    // The sample app (test/env/sample/web.yaml) runs in the member, and the control cluster's
    // template shows the fleet sum: 2 ready replicas from the one member.
    const inMember = await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: "web", namespace: "demo" });
    assert.ok(
      inMember.status?.conditions?.some((c) => c.type === "Available" && c.status === "True"),
      `member1 Deployment demo/web Available: ${JSON.stringify(inMember.status)}`,
    );
    const control = new KubeConfig();
    control.loadFromFile(join(state, "control.kubeconfig"));
    const template = await control.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: "web", namespace: "demo" });
    assert.equal(template.status?.readyReplicas, 2, `control Deployment demo/web status: ${JSON.stringify(template.status)}`);

    // Multi-cluster DNS: the server named in <state>/dns-server answers the sample's global name
    // with member1's load-balancer address, as up's hint says.
    const dnsServer = (await readFile(join(state, "dns-server"), "utf8")).trim();
    assert.match(up.stderr(), new RegExp(`dig @127\\.0\\.0\\.1 -p ${dnsServer.split(":")[1]} \\+short web\\.demo\\.fleet\\.svc\\.example\\.com`));
    const member1Service = await kc.makeApiClient(CoreV1Api).readNamespacedService({ name: "web", namespace: "demo" });
    const lb = member1Service.status?.loadBalancer?.ingress?.map((i) => i.ip ?? "") ?? [];
    assert.equal(lb.length, 1, `member1 Service demo/web has a load-balancer address: ${JSON.stringify(member1Service.status)}`);
    assert.deepEqual(await resolveAt(dnsServer, "web.demo.fleet.svc.example.com", "A"), lb);

    // A process that dies is reported; the rest keep running; `restart` starts it again in place.
    for (const name of ["agent-member1", "member1-kube-apiserver"]) {
      const pid = Number((await readFile(join(state, "pids", `${name}.pid`), "utf8")).trim());
      process.kill(pid, "SIGKILL");
      await waitFor(async () => up.stderr().includes(`${name} exited (signal SIGKILL); the rest keep running`), { what: `up to report ${name}'s exit`, timeoutMs: 10_000 });
      assert.equal(up.child.exitCode, null, "up keeps running");
      const restart = run(["restart", name], { FLOTILLA_STATE_DIR: state });
      const restarted = await restart.exit;
      assert.equal(restarted.code, 0, restart.stderr());
      const newPid = Number(/restarted \(pid (\d+)\)/.exec(restart.stdout())?.[1]);
      assert.ok(newPid > 0 && newPid !== pid && isProcessAlive(newPid), `${name} runs again: ${restart.stdout()}`);
      assert.equal(Number((await readFile(join(state, "pids", `${name}.pid`), "utf8")).trim()), newPid, "its pid file names the new run");
    }
    // The member's apiserver came back on the same port with the same data.
    const again = await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: "web", namespace: "demo" });
    assert.equal(again.metadata?.uid, inMember.metadata?.uid, "the same Deployment, read through the same kubeconfig");
    const unknown = run(["restart", "nope"], { FLOTILLA_STATE_DIR: state });
    assert.equal((await unknown.exit).code, 1);
    assert.match(unknown.stderr(), /no process named "nope"; the fleet has: .*agent-member1/);
    const elsewhere = run(["restart", "agent-member1", "--state-dir", await stateDir()]);
    assert.equal((await elsewhere.exit).code, 1);
    assert.match(elsewhere.stderr(), /no fleet runs from .*npm run up/);

    const second = run(["up"], { FLOTILLA_STATE_DIR: state });
    const secondExit = await second.exit;
    assert.equal(secondExit.code, 1);
    assert.match(second.stderr(), /a fleet already runs from .* \(pid \d+\); stop it first/);

    const running = await readPids(state);
    up.child.kill("SIGTERM");
    const exit = await up.exit;
    assert.equal(exit.code, 0, up.stderr());
    for (const pid of [...pids, ...running]) assert.ok(!isProcessAlive(pid), `pid ${pid} stopped`);
    assert.deepEqual(await readdir(state), [], "kubeconfigs, pid files, certificates, logs and cluster data removed");
  });

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
