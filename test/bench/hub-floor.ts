// bench:hub-floor (issue 42): Node.js's floor under the control plane's memory per agent. A bare
// gRPC server with the hub's options and mutual TLS (hub-floor-server.ts), holding N callers'
// bidirectional streams open, each caller on a connection of its own (hub-floor-clients.ts, in C
// processes). It prints the server's memory in parts (V8 heap used of total, external, the rest:
// code and native allocations such as OpenSSL's and nghttp2's) before any connection and with N,
// as they are and after a full GC, and what each connection adds. What bench:fleet's control
// plane holds per agent above this is Flotilla's own.
//   node test/bench/hub-floor.ts [--connections N[,N…]] [--clients C] [--server-node-args "FLAGS"] [--server-env "K=V …"]
import { type ChildProcess, fork } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createCa, issueAgentCertificate, issueCertificate } from "../../shared/pki.ts";
import { envPairs, positiveInt, words } from "./bench-args.ts";
import { memoryParts, type MemoryParts, type MemoryUsage, partsLine, perConnection } from "./hub-floor-figures.ts";

const { values } = parseArgs({
  options: {
    connections: { type: "string", default: "1000,5000" },
    clients: { type: "string", default: "2" },
    "server-node-args": { type: "string", default: "" },
    "server-env": { type: "string", default: "" },
  },
});
const counts = (values.connections as string).split(",").map((v) => positiveInt("connections", v.trim()));
const C = positiveInt("clients", values.clients);
const serverNodeArgs = words(values["server-node-args"]);
const serverEnv = envPairs("server-env", values["server-env"]);
const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The next IPC message of the given type from p, or the reason it will not come. */
function next<T>(p: ChildProcess, type: string, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`no ${type} from ${p.pid} within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (m: { type: string }) => {
      if (m.type === type) done(undefined, m as T);
    };
    const onExit = (code: number | null) => done(new Error(`process ${p.pid} exited (${code}) before ${type}`));
    const done = (err: Error | undefined, m?: T) => {
      clearTimeout(timer);
      p.off("message", onMessage);
      p.off("exit", onExit);
      if (err) reject(err);
      else resolve(m as T);
    };
    p.on("message", onMessage);
    p.on("exit", onExit);
  });
}

async function memory(server: ChildProcess, gc: boolean): Promise<MemoryParts & { streams: number }> {
  const answer = next<MemoryUsage & { streams: number }>(server, "memory", 30_000);
  server.send({ type: "memory", gc });
  const m = await answer;
  return { ...memoryParts(m), streams: m.streams };
}

async function measure(n: number, files: { ca: string; cert: string; key: string; agentCert: string; agentKey: string }): Promise<void> {
  const children: ChildProcess[] = [];
  try {
    const server = fork(here("./hub-floor-server.ts"), [files.ca, files.cert, files.key], { execArgv: ["--expose-gc", ...serverNodeArgs], env: { ...process.env, ...serverEnv }, stdio: ["ignore", "inherit", "inherit", "ipc"] });
    children.push(server);
    const { port } = await next<{ port: number }>(server, "listening", 30_000);
    await sleep(2000);
    const [idle, idleGc] = [await memory(server, false), await memory(server, true)];
    const t = performance.now();
    const clients = Array.from({ length: C }, (_, i) => {
      const share = Math.floor(n / C) + (i < n % C ? 1 : 0);
      const p = fork(here("./hub-floor-clients.ts"), [`127.0.0.1:${port}`, files.ca, files.agentCert, files.agentKey, String(share)], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
      children.push(p);
      return next<{ open: number }>(p, "ready", 600_000);
    });
    const open = (await Promise.all(clients)).reduce((a, r) => a + r.open, 0);
    const openS = (performance.now() - t) / 1000;
    await sleep(5000);
    const [held, heldGc] = [await memory(server, false), await memory(server, true)];
    console.log(`N=${n}: ${open} streams open in ${openS.toFixed(1)} s (the server counts ${held.streams})`);
    console.log(`  server, no connection:      ${partsLine(idle, "MiB")}; after a full GC: heap ${(idleGc.heapUsed / 1024 / 1024).toFixed(1)} MiB used`);
    console.log(`  server, ${String(n).padEnd(5)} connections:  ${partsLine(held, "MiB")}`);
    console.log(`                    after a full GC: ${partsLine(heldGc, "MiB")}`);
    const per = perConnection(idle, held, held.streams);
    const perGc = perConnection(idleGc, heldGc, heldGc.streams);
    if (per && perGc) {
      console.log(`  per connection:             ${partsLine(per, "KiB")}`);
      console.log(`    after a full GC:          ${partsLine(perGc, "KiB")}`);
    }
  } finally {
    for (const p of children) p.kill("SIGKILL");
    await Promise.all(children.map((p) => (p.exitCode !== null || p.signalCode !== null ? undefined : new Promise((r) => p.once("exit", r)))));
  }
}

const dir = await mkdtemp(join(tmpdir(), "flotilla-hub-floor-"));
try {
  const ca = await createCa("flotilla-bench-ca");
  const hub = await issueCertificate(ca, { commonName: "flotilla-hub", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], usage: "server" });
  const agent = await issueAgentCertificate(ca, "floor", "00000000-0000-0000-0000-000000000000");
  const files = { ca: join(dir, "ca.crt"), cert: join(dir, "hub.crt"), key: join(dir, "hub.key"), agentCert: join(dir, "agent.crt"), agentKey: join(dir, "agent.key") };
  await Promise.all([writeFile(files.ca, ca.certPem), writeFile(files.cert, hub.certPem), writeFile(files.key, hub.keyPem, { mode: 0o600 }), writeFile(files.agentCert, agent.certPem), writeFile(files.agentKey, agent.keyPem, { mode: 0o600 })]);
  const how = [serverNodeArgs.length > 0 ? `node ${serverNodeArgs.join(" ")}` : "", ...Object.entries(serverEnv).map(([k, v]) => `${k}=${v}`)].filter((s) => s !== "").join(", ");
  console.log(`bench:hub-floor: a bare gRPC server with mutual TLS (the hub's options${how === "" ? "" : `; ${how}`}), callers in ${C} processes, one connection and one open stream each`);
  for (const n of counts) await measure(n, files);
} finally {
  await rm(dir, { recursive: true, force: true });
}
