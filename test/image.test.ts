// The container image: `npm run image` builds the Dockerfile with podman (on a local base: no
// registry is reachable here), the image's metadata, and the control plane and an agent run from
// it against a test fleet with --network host and a read-only root filesystem: the agent
// registers with a bootstrap token, a template reaches its member, and `podman stop` ends both
// promptly. Images stay cached in podman's storage (the base is made once); containers are removed.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { createCa, issueAdminCertificate, issueCertificate } from "../shared/pki.ts";
import { apply, eventually, getJson, runCommand } from "./e2e/helpers.ts";
import { onExit } from "./env/cleanup.ts";
import type { Cluster } from "./env/cluster.ts";
import { type Fleet, startFleet } from "./env/fleet.ts";
import { freePort } from "./env/free-port.ts";
import { waitFor } from "./env/wait.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const podmanScript = join(root, "scripts/podman.sh");
const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
/** What the charts default to (image.repository, and the tag = appVersion = the package version). */
const chartsImage = `ghcr.io/flotilla/flotilla:${version}`;
/**
 * Issue 25's bound. Measured 2026-11-25 on the local base: 122 MB (Node.js 24 stripped 108.5 MB,
 * the C and C++ runtimes and dash ~8 MB, the bundles with the CRDs and the dashboard ~6 MB; no
 * node_modules). Was 231.7 MB with Debian's minbase and the production node_modules.
 */
const MAX_SIZE_BYTES = 160_000_000;
const STOP_WITHIN_MS = 5_000;
/** The agent chart's default node flags (values nodeArgs and nodeOptions). */
const AGENT_CHART_ENV = ["FLOTILLA_NODE_ARGS=--optimize-for-size --single-threaded", "NODE_OPTIONS=--max-semi-space-size=1"];
/** The control-plane chart's default node flags (values nodeArgs). */
const CONTROL_PLANE_CHART_ENV = ["FLOTILLA_NODE_ARGS=--heap-growing-percent=30"];
const NS = "image";

const podman = (args: string[], timeoutMs = 120_000) => runCommand("bash", [podmanScript, ...args], { timeoutMs });

interface ImageInspect {
  Size: number;
  Config: { User?: string; Entrypoint?: string[]; Labels?: Record<string, string>; Env?: string[] };
}

describe("the container image", () => {
  let image = "";
  /** Containers this file started: removed after, and at exit however the run ends. */
  const containers: string[] = [];
  const removeContainers = () => {
    if (containers.length > 0) execFileSync("bash", [podmanScript, "rm", "-f", "-t", "0", ...containers], { stdio: "ignore" });
  };
  const unregister = onExit(() => {
    try {
      removeContainers();
    } catch {
      // Exiting anyway; a later run's `podman rm -f` of the same names would fail loudly.
    }
  });

  before(async () => {
    const started = Date.now();
    const built = await runCommand("bash", [join(root, "scripts/build-image.sh")], { timeoutMs: 30 * 60_000 });
    assert.equal(built.code, 0, `npm run image failed:\n${built.stderr.slice(-4000)}`);
    image = built.stdout.trim();
    console.log(`# image ${image} built in ${Date.now() - started} ms: ${built.stderr.split("\n").filter((l) => l.startsWith("flotilla:")).join("; ")}`);
  });
  after(async () => {
    await podman(["rm", "-f", "-t", "0", ...containers]);
    containers.length = 0;
    unregister();
  });

  it("is tagged as the charts' default image", () => {
    assert.equal(image, chartsImage);
  });

  it("runs as a numeric non-root user, enters at `flotilla`, carries the OCI labels, and stays small", async () => {
    const r = await podman(["image", "inspect", image]);
    assert.equal(r.code, 0, r.stderr);
    const [info] = JSON.parse(r.stdout) as ImageInspect[];
    assert.ok(info);
    assert.equal(info.Config.User, "65532:65532");
    assert.deepEqual(info.Config.Entrypoint, ["flotilla"]);
    const labels = info.Config.Labels ?? {};
    assert.equal(labels["org.opencontainers.image.version"], version);
    assert.equal(labels["org.opencontainers.image.revision"], execFileSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8" }).trim());
    assert.equal(labels["org.opencontainers.image.source"], "https://github.com/flotilla/flotilla");
    console.log(`# image size ${(info.Size / 1e6).toFixed(1)} MB`);
    assert.ok(info.Size < MAX_SIZE_BYTES, `image is ${info.Size} bytes, over ${MAX_SIZE_BYTES}`);
    // The bundles and what they read beside them, their licence notices, and nothing else: no
    // node_modules, no compiler or tests (they stayed in the build stage), no source maps.
    const script = "const fs = require('fs'); console.log(JSON.stringify({ app: fs.readdirSync('/app'), dist: fs.readdirSync('/app/dist'), crds: fs.readdirSync('/app/dist/crds').length, mcs: fs.readdirSync('/app/dist/mcs-crds'), web: fs.readdirSync('/app/dist/web-dist') }))";
    const ls = await podman(["run", "--rm", "--read-only", "--entrypoint", "node", image, "-e", script]);
    assert.equal(ls.code, 0, ls.stderr);
    const listed = JSON.parse(ls.stdout) as { app: string[]; dist: string[]; crds: number; mcs: string[]; web: string[] };
    assert.deepEqual(listed.app, ["dist"]);
    for (const f of ["agent.mjs", "flotilla.mjs", "lease-worker.mjs", "lua-worker.mjs", "entrypoint.mjs", "agent.mjs.THIRD-PARTY-NOTICES.txt", "flotilla.mjs.THIRD-PARTY-NOTICES.txt", "agent.mjs.LEGAL.txt", "flotilla.mjs.LEGAL.txt"]) assert.ok(listed.dist.includes(f), `/app/dist has no ${f}: ${listed.dist.join(" ")}`);
    assert.equal(listed.dist.some((f) => f.endsWith(".map") || f === "node_modules"), false, listed.dist.join(" "));
    assert.ok(listed.crds >= 10, `${listed.crds} CRDs`);
    assert.deepEqual(listed.mcs.filter((f) => f.endsWith(".yaml")).sort(), ["clusterproperties.yaml", "serviceexports.yaml", "serviceimports.yaml"]);
    assert.ok(listed.web.includes("index.html") && listed.web.includes("app.js"), listed.web.join(" "));
  });

  it("prints its usage on a read-only root filesystem", async () => {
    const r = await podman(["run", "--rm", "--read-only", image, "--help"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /usage: flotilla <command>/);
  });

  it(`podman stop ends a command still starting within ${STOP_WITHIN_MS} ms (before its own SIGTERM handler exists)`, async () => {
    // An apiserver that accepts connections and never answers: the control plane's start (CRD
    // install) hangs, as against an unreachable cluster, long before it waits for signals.
    const held: Socket[] = [];
    const silent = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const dir = await mkdtemp(join(tmpdir(), "flotilla-image-silent-"));
    try {
      const port = (silent.address() as AddressInfo).port;
      const kubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: silent, cluster: {server: "https://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]
users: [{name: silent, user: {token: unused}}]
contexts: [{name: silent, context: {cluster: silent, user: silent}}]
current-context: silent
`;
      await writeFile(join(dir, "kubeconfig"), kubeconfig, { mode: 0o644 });
      await chmod(dir, 0o755);
      const name = `flotilla-test-${process.pid}-starting`;
      containers.push(name);
      const file = "/in/kubeconfig"; // any readable file: the PEMs are never parsed before the hang
      const r = await podman(["run", "-d", "--name", name, "--network", "host", "--read-only", "-v", `${dir}:/in:ro`, image,
        "control-plane", `--kubeconfig=${file}`, "--grpc-listen=127.0.0.1:0", "--health-listen=127.0.0.1:0", `--ca-cert=${file}`, `--tls-cert=${file}`, `--tls-key=${file}`]);
      assert.equal(r.code, 0, r.stderr);
      await waitFor(async () => held.length > 0, { what: "the control plane dialing the silent apiserver", timeoutMs: 30_000 });
      const started = Date.now();
      const stop = await podman(["stop", "-t", "30", name]);
      assert.equal(stop.code, 0, stop.stderr);
      const ms = Date.now() - started;
      const exit = (await podman(["inspect", "--format", "{{.State.ExitCode}}", name])).stdout.trim();
      console.log(`# podman stop of a starting control plane: ${ms} ms, exit code ${exit}`);
      assert.ok(ms < STOP_WITHIN_MS, `took ${ms} ms: SIGTERM ignored until the grace period's SIGKILL`);
      assert.equal(exit, "143", "exits as SIGTERM's default action would (128 + 15)");
    } finally {
      for (const socket of held) socket.destroy();
      silent.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe("on a test fleet (--network host)", () => {
    let fleet: Fleet;
    let state = "";
    let token = "";
    const hubPort = { grpc: 0, registration: 0, health: 0, agentHealth: 0 };
    const member = () => fleet.members[0] as Cluster;
    /** Starts a container detached: read-only root, host network, the state dir mounted read-only. */
    const runDetached = async (name: string, args: string[], env: string[] = []) => {
      containers.push(name);
      // As the charts run it: read-only root, no capabilities, no privilege escalation.
      const envArgs = ["LOG_LEVEL=info", ...env].flatMap((e) => ["-e", e]);
      const r = await podman(["run", "-d", "--name", name, "--network", "host", "--read-only", "--cap-drop=all", "--security-opt=no-new-privileges", "-v", `${state}:/state:ro`, ...envArgs, image, ...args]);
      assert.equal(r.code, 0, r.stderr);
    };
    const logs = async (name: string) => (await podman(["logs", name])).stderr.slice(-3000);
    const healthy = async (port: number, path: string) => {
      try {
        return (await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(2_000) })).ok;
      } catch {
        return false;
      }
    };
    /** `podman stop` with a 30 s grace period: resolves with how long the container took to end. */
    const timedStop = async (name: string) => {
      const started = Date.now();
      const r = await podman(["stop", "-t", "30", name]);
      assert.equal(r.code, 0, r.stderr);
      const ms = Date.now() - started;
      const exit = (await podman(["inspect", "--format", "{{.State.ExitCode}}", name])).stdout.trim();
      return { ms, exit };
    };

    before(async () => {
      fleet = await startFleet({ members: 1 });
      // The files the containers read, readable by their non-root user: a test CA, the hub's
      // certificate, kubeconfigs (client keys inline); flotillactl reads the admin ones.
      state = await mkdtemp(join(tmpdir(), "flotilla-image-"));
      const certs = join(state, "flotilla-certs");
      await mkdir(certs);
      const ca = await createCa("flotilla-image-test-ca");
      const hub = await issueCertificate(ca, { commonName: "flotilla-hub", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], usage: "server" });
      const admin = await issueAdminCertificate(ca, "admin");
      [hubPort.grpc, hubPort.registration, hubPort.health, hubPort.agentHealth] = [await freePort(), await freePort(), await freePort(), await freePort()];
      const files: [string, string][] = [
        ["flotilla-certs/ca.crt", ca.certPem],
        ["flotilla-certs/ca.key", ca.keyPem],
        ["flotilla-certs/hub.crt", hub.certPem],
        ["flotilla-certs/hub.key", hub.keyPem],
        ["flotilla-certs/admin.crt", admin.certPem],
        ["flotilla-certs/admin.key", admin.keyPem],
        ["flotilla-certs/admin-endpoint", `127.0.0.1:${hubPort.grpc}\n`],
        ["control.kubeconfig", await readFile(fleet.control.kubeconfigPath, "utf8")],
        ["member.kubeconfig", await readFile(member().kubeconfigPath, "utf8")],
      ];
      await Promise.all(files.map(([f, text]) => writeFile(join(state, f), text, { mode: 0o644 })));
      await Promise.all([chmod(state, 0o755), chmod(certs, 0o755)]);
    });
    after(async () => {
      await podman(["rm", "-f", "-t", "0", ...containers]);
      await fleet?.stop();
      if (state !== "") await rm(state, { recursive: true, force: true });
    });

    it("the control plane serves from the image", async () => {
      await runDetached(`flotilla-test-${process.pid}-control-plane`, [
        "control-plane",
        "--kubeconfig=/state/control.kubeconfig",
        `--grpc-listen=127.0.0.1:${hubPort.grpc}`,
        `--health-listen=127.0.0.1:${hubPort.health}`,
        `--registration-listen=127.0.0.1:${hubPort.registration}`,
        "--ca-cert=/state/flotilla-certs/ca.crt",
        "--ca-key=/state/flotilla-certs/ca.key",
        "--tls-cert=/state/flotilla-certs/hub.crt",
        "--tls-key=/state/flotilla-certs/hub.key",
        "--identity=control-plane",
      ], CONTROL_PLANE_CHART_ENV);
      const name = containers.at(-1) as string;
      await waitFor(() => healthy(hubPort.health, "/readyz"), { what: "the control plane's /readyz", timeoutMs: 60_000 }).catch(async (err: Error) => {
        throw new Error(`${err.message}\n${await logs(name)}`);
      });
      // The chart's default node flag reaches node's command line, and this image's node takes it.
      const cmdline = await podman(["exec", name, "node", "-e", "console.log(require('fs').readFileSync('/proc/1/cmdline', 'utf8').split('\\0').join(' '))"]);
      assert.equal(cmdline.code, 0, cmdline.stderr);
      assert.match(cmdline.stdout, /^node --heap-growing-percent=30 \/app\/dist\/entrypoint\.mjs control-plane /);
      const ctl = await runCommand(process.execPath, [join(root, "bin/flotillactl.ts"), "token", "create", "--ttl", "1h"], { env: { ...process.env, FLOTILLA_STATE_DIR: state } });
      assert.equal(ctl.code, 0, ctl.stderr);
      token = ctl.stdout.trim();
      assert.match(token, /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
    });

    it("an agent from the image registers with a bootstrap token, and a template reaches its member", async () => {
      assert.notEqual(token, "", "needs the control plane");
      const m = member().name;
      await runDetached(`flotilla-test-${process.pid}-agent`, [
        "agent",
        `--cluster-name=${m}`,
        "--kubeconfig=/state/member.kubeconfig",
        `--hub-address=127.0.0.1:${hubPort.grpc}`,
        "--hub-server-name=localhost",
        "--ca-cert=/state/flotilla-certs/ca.crt",
        `--bootstrap-token=${token}`,
        `--registration-address=127.0.0.1:${hubPort.registration}`,
        `--health-listen=127.0.0.1:${hubPort.agentHealth}`,
      ], AGENT_CHART_ENV);
      const name = containers.at(-1) as string;
      // The node flags the agent chart gives by default reach node's command line (FLOTILLA_NODE_ARGS) and NODE_OPTIONS.
      const cmdline = await podman(["exec", name, "node", "-e", "console.log(require('fs').readFileSync('/proc/1/cmdline', 'utf8').split('\\0').join(' ')); console.log(process.env.NODE_OPTIONS)"]);
      assert.equal(cmdline.code, 0, cmdline.stderr);
      assert.match(cmdline.stdout, /^node --optimize-for-size --single-threaded \/app\/dist\/entrypoint\.mjs agent /);
      assert.match(cmdline.stdout, /^--max-semi-space-size=1$/m);
      type ClusterJson = { status?: { conditions?: { type: string; status: string }[] } };
      await eventually("the Cluster Ready", () => getJson<ClusterJson>(fleet.control, ["cluster", m]), (c) => c.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True") === true, 60_000).catch(async (err: Error) => {
        throw new Error(`${err.message}\n${await logs(name)}`);
      });
      await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: NS } }));
      await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "hello", namespace: NS }, data: { from: "image" } }));
      await apply(
        fleet.control,
        JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "hello", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "hello" }] } }),
      );
      const cm = await eventually("hello in the member", () => getJson<{ data?: Record<string, string> }>(member(), ["configmap", "-n", NS, "hello"]), () => true);
      assert.deepEqual(cm.data, { from: "image" });
    });

    it(`podman stop ends the agent and the control plane within ${STOP_WITHIN_MS} ms each (Node as PID 1 handles SIGTERM)`, async () => {
      const [cp, agent] = containers.slice(-2) as [string, string];
      for (const name of [agent, cp]) {
        const { ms, exit } = await timedStop(name);
        console.log(`# podman stop ${name}: ${ms} ms, exit code ${exit}`);
        assert.ok(ms < STOP_WITHIN_MS, `${name} took ${ms} ms to stop (SIGKILL after the grace period?)`);
        assert.equal(exit, "0", `${name} exited ${exit} on SIGTERM:\n${await logs(name)}`);
      }
    });
  });
});
