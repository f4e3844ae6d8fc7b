// A member's pods have logs: kwok serves them as each Node's kubelet, from the file appendPodLog
// writes, so `kubectl logs` and `kubectl logs -f` against the member's apiserver return real lines
// (what issue 41's member API is tested with). `kubectl exec` reaches kwok too, which refuses it.
import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ClientRequest } from "node:http";
import { type RequestOptions, request } from "node:https";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import { CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import { binaryPath, ensureBinaries } from "./binaries.ts";
import { type Cluster, startCluster } from "./cluster.ts";
import { isListening } from "./free-port.ts";
import { isProcessAlive } from "./managed-process.ts";
import { appendPodLog, criLogEntries } from "./pod-logs.ts";
import { waitFor } from "./wait.ts";

const run = promisify(execFile);

/**
 * GET path from the cluster as its admin, each chunk of the body to onData; resolves with the
 * request once the status is 200 (rejects on another), for the caller to destroy.
 */
async function followLog(kc: KubeConfig, path: string, onData: (chunk: string) => void): Promise<ClientRequest> {
  const server = new URL(kc.getCurrentCluster()?.server ?? "");
  const opts: RequestOptions = { host: server.hostname, port: server.port, path, method: "GET", agent: false };
  await kc.applyToHTTPSOptions(opts);
  return new Promise((resolve, reject) => {
    const req = request(opts, (res) => {
      res.setEncoding("utf8");
      if (res.statusCode !== 200) {
        let body = "";
        res.on("data", (c: string) => (body += c));
        res.on("end", () => reject(new Error(`GET ${path}: ${res.statusCode} ${body}`)));
        return;
      }
      res.on("data", onData);
      res.on("error", () => undefined); // destroyed by the caller
      resolve(req);
    });
    req.on("error", reject);
    req.end();
  });
}

describe("criLogEntries", () => {
  const time = new Date("2026-11-30T12:00:00.123Z");
  it("writes one full CRI entry per line, on the stream asked, at the time given", () => {
    assert.equal(criLogEntries("one", { time }), "2026-11-30T12:00:00.123Z stdout F one\n");
    assert.equal(criLogEntries("a\nb\n", { time, stream: "stderr" }), "2026-11-30T12:00:00.123Z stderr F a\n2026-11-30T12:00:00.123Z stderr F b\n");
    assert.equal(criLogEntries("", { time }), "2026-11-30T12:00:00.123Z stdout F \n", "an empty line is a line");
  });
});

describe("a member's pod logs, through its apiserver", () => {
  const ns = "default";
  const pod = "logger";
  const dir = join(tmpdir(), `flotilla-pod-logs-${process.pid}`);
  let member: Cluster;
  let kubectl: string;
  const children: ChildProcess[] = [];

  const k = (...args: string[]) => run(kubectl, ["--kubeconfig", member.kubeconfigPath, ...args]);

  before(async () => {
    kubectl = binaryPath(await ensureBinaries(), "kubectl");
    member = await startCluster({ name: "member1", role: "member", dir });
    const core = member.kubeConfig().makeApiClient(CoreV1Api);
    await core.createNamespacedPod({ namespace: ns, body: { metadata: { name: pod }, spec: { containers: [{ name: "app", image: "nginx" }] } } });
    await waitFor(async () => (await core.readNamespacedPod({ name: pod, namespace: ns })).status?.phase === "Running", {
      what: `pod ${pod} Running`,
      timeoutMs: 30_000,
      intervalMs: 100,
    });
  });

  after(async () => {
    for (const c of children) c.kill("SIGKILL");
    const pids = member?.processes.map((p) => p.pid) ?? [];
    await member?.stop();
    for (const pid of pids) assert.ok(!isProcessAlive(pid), `pid ${pid} is gone`);
    for (const port of member?.ports ?? []) assert.ok(!(await isListening(port)), `port ${port} is free`);
    assert.ok(!existsSync(dir), `${dir} is removed`);
  });

  it("serves `kubectl logs` from the pod log: the lines in order, --tail, --timestamps", async () => {
    await appendPodLog(member, "first line\nsecond line");
    await appendPodLog(member, "third line", { stream: "stderr", time: new Date("2026-11-30T12:00:00.5Z") });
    assert.equal((await k("logs", "-n", ns, pod)).stdout, "first line\nsecond line\nthird line\n");
    assert.equal((await k("logs", "-n", ns, pod, "-c", "app", "--tail=1", "--timestamps")).stdout, "2026-11-30T12:00:00.500000000Z third line\n");
  });

  it("streams a line appended after `logs -f` started, to a follow=true request and to kubectl", async (t) => {
    // A raw request (what a client of the member API sends): following once the apiserver
    // answered 200, which it does only after kwok did.
    let got = "";
    const req = await followLog(member.kubeConfig(), `/api/v1/namespaces/${ns}/pods/${pod}/log?container=app&follow=true&tailLines=1`, (chunk) => (got += chunk));
    // kubectl: following once it printed the last line there is.
    const child = spawn("setpriv", ["--pdeathsig", "KILL", "--", kubectl, "--kubeconfig", member.kubeconfigPath, "logs", "-f", "--tail=1", "-n", ns, pod], { stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let printed = "";
    child.stdout?.on("data", (b: Buffer) => (printed += b.toString()));
    child.stderr?.on("data", (b: Buffer) => (printed += b.toString()));
    try {
      const seen = () => `request: ${JSON.stringify(got)}, kubectl: ${JSON.stringify(printed)}`;
      await waitFor(async () => printed.length > 0 && got.length > 0, { what: "both followers print the last line", timeoutMs: 15_000, intervalMs: 50 }).catch((err: Error) => {
        throw new Error(`${err.message} (${seen()})`);
      });
      const marker = `appended at ${Date.now()}`;
      const t0 = performance.now();
      await appendPodLog(member, marker);
      await waitFor(async () => got.includes(marker) && printed.includes(marker), { what: "the appended line in both followers", timeoutMs: 15_000, intervalMs: 20 }).catch((err: Error) => {
        throw new Error(`${err.message} (${seen()})`);
      });
      const ms = performance.now() - t0;
      assert.equal(child.exitCode, null, "kubectl still follows");
      assert.equal(got.split("\n").at(-2), marker, "the request's stream ends with the line");
      assert.equal(printed.split("\n").at(-2), marker, "kubectl's output ends with the line");
      t.diagnostic(`the appended line reached both followers in ${ms.toFixed(0)} ms`);
    } finally {
      req.destroy();
      child.kill("SIGKILL");
    }
  });

  it("sends `kubectl exec` through to kwok, which refuses it: no ClusterExec is configured (docs/development/test-env.md)", async () => {
    const err = await k("exec", "-n", ns, pod, "--", "echo", "hi").then(
      () => assert.fail("kubectl exec ran a command"),
      (e: { stderr?: string }) => e.stderr ?? "",
    );
    assert.match(err, /no exec found for container "app" in pod "default\/logger"/);
  });
});
