// Issue 25: a real control plane admits a bounded number of agent streams per second; an agent it
// refuses is told when to come back (retry-after-ms), waits that long, not its own backoff, and
// then connects. Issue 42: by default new connections are admitted at that rate before their TLS
// handshake instead, and wait their turn there. The agents are the real agent's HubConnection
// (bench:fleet's SimAgent).
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { RESOURCES } from "../shared/api/resources.ts";
import { collectionPath, KubeRest } from "../shared/kube-rest.ts";
import { issueAgentCertificate } from "../shared/pki.ts";
import { type BenchControlPlane, metricValue, startBenchControlPlane } from "./bench/fleet-control-plane.ts";
import { SimAgent } from "./bench/fleet-sim-agent.ts";
import { type Cluster, startCluster } from "./env/cluster.ts";
import { waitFor } from "./env/wait.ts";

const AGENTS = 6;
const RATE = 2;

interface LogLine {
  time: number;
  msg: string;
  cluster: string;
  why?: string;
  code?: number;
  retryInMs?: number;
}

/** Agents for new Clusters named prefix-0…, logging into `lines`. */
async function newAgents(control: Cluster, cp: BenchControlPlane, prefix: string, lines: LogLine[]): Promise<SimAgent[]> {
  const rest = new KubeRest(control.kubeConfig());
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split("\n")) if (l !== "") lines.push(JSON.parse(l) as LogLine);
      done();
    },
  });
  const log = pino({ level: "info", timestamp: pino.stdTimeFunctions.epochTime }, sink);
  const agents: SimAgent[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const name = `${prefix}-${i}`;
    const c = await rest.request<{ metadata: { uid: string } }>("POST", collectionPath(RESOURCES.cluster), { body: { apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name }, spec: {} } });
    const pair = await issueAgentCertificate(cp.ca, name, c.metadata.uid);
    agents.push(new SimAgent({ name, address: cp.address, serverName: cp.serverName, ca: Buffer.from(cp.ca.certPem), cert: Buffer.from(pair.certPem), key: Buffer.from(pair.keyPem), heartbeatMs: 10_000, log: log.child({ cluster: name }) }));
  }
  return agents;
}

/** Starts the agents at once, so that they arrive together, and waits until each has synced; when they started. */
async function startTogether(agents: SimAgent[]): Promise<number> {
  const t0 = Date.now();
  for (const a of agents) a.start();
  await waitFor(async () => agents.every((a) => a.synced), { what: "every agent to sync", timeoutMs: 60_000, intervalMs: 50 });
  return t0;
}

describe("agent admission (--max-agent-admissions-per-second)", () => {
  let dir = "";
  let control: Cluster;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "flotilla-admission-"));
    control = await startCluster({ name: "control", role: "control", dir: join(dir, "control") });
  });
  after(async () => {
    await control?.stop();
    if (dir !== "") await rm(dir, { recursive: true, force: true });
  });

  describe("streams alone, after TLS (--agent-admission-before-tls=false)", () => {
    let cp: BenchControlPlane;
    const agents: SimAgent[] = [];
    before(async () => {
      cp = await startBenchControlPlane(control, dir, "warn", [`--max-agent-admissions-per-second=${RATE}`, "--agent-admission-before-tls=false"]);
    });
    after(async () => {
      for (const a of agents) a.stop();
      await cp?.stop();
    });

    it("refuses agents beyond the rate with a slot each; a refused agent waits its slot, then connects", async () => {
      const lines: LogLine[] = [];
      agents.push(...(await newAgents(control, cp, "admit", lines)));
      const t0 = await startTogether(agents);

      const refused = metricValue(await cp.metricsText(), "flotilla_agent_admissions_refused_total") ?? 0;
      assert.ok(refused >= AGENTS - RATE, `the hub refused at least ${AGENTS - RATE} streams beyond its burst of ${RATE} (refused ${refused})`);
      const refusals = lines.filter((l) => l.msg === "hub stream ended; reconnecting" && l.code === 14 && /admits \d+ agents per second; retry in \d+ ms/.test(l.why ?? ""));
      assert.ok(refusals.length >= AGENTS - RATE, `agents heard at least ${AGENTS - RATE} refusals with a retry-after (heard ${refusals.length})`);
      for (const r of refusals) {
        const told = Number(/retry in (\d+) ms/.exec(r.why ?? "")?.[1]);
        assert.ok((r.retryInMs ?? 0) >= told && (r.retryInMs ?? 0) <= told * 1.1 + 1, `${r.cluster} waits what it was told (${r.retryInMs} ms for ${told} ms), not its own backoff`);
        const next = lines.find((l) => l.cluster === r.cluster && l.time > r.time && (l.msg === "synced with the hub" || l.msg === "hub stream ended; reconnecting"));
        assert.ok(next !== undefined, `${r.cluster} came back after its refusal`);
        assert.ok(next.time - r.time >= told - 5, `${r.cluster} came back ${next.time - r.time} ms after a refusal that said ${told} ms`);
      }
      // The slots are 1/RATE apart: the last agent syncs about (AGENTS - RATE) / RATE s after the first.
      const lastSync = Math.max(...agents.map((a) => a.lastSyncAt));
      assert.ok(lastSync - t0 >= ((AGENTS - RATE) / RATE) * 1000 * 0.9, `the last agent synced ${lastSync - t0} ms after the start: admissions were spread`);
    });

    it("counts more agents lost at once than a burst as a storm to wait for (the backlog the storm grace lasts)", async () => {
      for (const a of agents) a.stop();
      await waitFor(async () => metricValue(await cp.metricsText(), "flotilla_connected_agents") === 0, { what: "every agent gone", timeoutMs: 30_000, intervalMs: 100 });
      const backlog = metricValue(await cp.metricsText(), "flotilla_agent_admission_backlog_seconds") ?? 0;
      // 6 agents lost at 2 a second: 3 s to admit them again.
      assert.ok(backlog > 2 && backlog <= AGENTS / RATE, `a backlog of about ${AGENTS / RATE} s (${backlog})`);
      agents[0]?.start();
      await waitFor(async () => agents[0]?.synced === true, { what: "one agent back", timeoutMs: 30_000, intervalMs: 50 });
      const after = metricValue(await cp.metricsText(), "flotilla_agent_admission_backlog_seconds") ?? 0;
      assert.ok(after < backlog, `the backlog shrinks as agents come back (${backlog} → ${after})`);
    });
  });

  describe("connections before TLS (the default)", () => {
    let cp: BenchControlPlane;
    const agents: SimAgent[] = [];
    before(async () => {
      cp = await startBenchControlPlane(control, dir, "warn", [`--max-agent-admissions-per-second=${RATE}`]);
    });
    after(async () => {
      for (const a of agents) a.stop();
      await cp?.stop();
    });

    it("admits new connections at the rate before their handshake: each agent waits its turn there, none is refused after TLS or backs off", async () => {
      const lines: LogLine[] = [];
      agents.push(...(await newAgents(control, cp, "tls", lines)));
      const t0 = await startTogether(agents);
      const metrics = await cp.metricsText();
      assert.equal(metricValue(metrics, "flotilla_agent_admissions_refused_total"), 0, "no stream was refused: each agent's connection had its admission");
      assert.deepEqual(lines.filter((l) => l.msg === "hub stream ended; reconnecting"), [], "no agent's stream ended: none backed off");
      assert.equal(metricValue(metrics, "flotilla_agent_connections_waiting"), 0);
      // A burst of RATE, then one every 1/RATE s: the last agent syncs about (AGENTS - RATE) / RATE s after the first.
      const lastSync = Math.max(...agents.map((a) => a.lastSyncAt));
      assert.ok(lastSync - t0 >= ((AGENTS - RATE) / RATE) * 1000 * 0.9, `the last agent synced ${lastSync - t0} ms after the start: handshakes were spread`);
    });
  });
});
