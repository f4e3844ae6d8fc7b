// A worker process of bench:fleet (forked by fleet-scale.ts): issues its agents' certificates and
// runs them as SimAgents. It answers the parent's requests over the IPC channel and exits when
// the parent goes away.
import { pino } from "pino";
import { issueAgentCertificate, type KeyPair } from "../../shared/pki.ts";
import { SimAgent } from "./fleet-sim-agent.ts";
import type { AgentsSummary, ToParent, ToWorker } from "./fleet-protocol.ts";

const agents: SimAgent[] = [];

/** Runs fn over items with at most `limit` calls in flight. */
async function pool<Item>(items: Item[], limit: number, fn: (item: Item) => Promise<void>): Promise<void> {
  let next = 0;
  const run = async () => {
    while (next < items.length) await fn(items[next++] as Item);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
}

function summary(since: number): AgentsSummary {
  let syncedSince = 0;
  let synced = 0;
  let connects = 0;
  let manifestBytes = 0;
  let held = 0;
  let minHeld = Number.POSITIVE_INFINITY;
  let lastSyncAt = 0;
  let syncs = 0;
  for (const a of agents) {
    if (a.synced) synced++;
    if (a.synced && a.lastSyncAt >= since) syncedSince++;
    connects += a.connects;
    manifestBytes += a.manifestBytes;
    held += a.held.size;
    minHeld = Math.min(minHeld, a.held.size);
    lastSyncAt = Math.max(lastSyncAt, a.lastSyncAt);
    syncs += a.syncs;
  }
  return { agents: agents.length, synced, connects, syncs, manifestBytes, held, minHeld: agents.length === 0 ? 0 : minHeld, lastSyncAt, syncedSince };
}

async function handle(m: ToWorker): Promise<unknown> {
  switch (m.type) {
    case "setup": {
      const t0 = performance.now();
      const ca: KeyPair = m.ca;
      const log = pino({ level: m.logLevel, base: { worker: process.pid } }, pino.destination({ dest: m.logFile, sync: false }));
      const made: SimAgent[] = new Array(m.agents.length);
      // WebCrypto runs on libuv's thread pool: a few in flight keep it busy.
      await pool(
        m.agents.map((a, i) => ({ ...a, i })),
        16,
        async (a) => {
          const pair = await issueAgentCertificate(ca, a.name, a.uid);
          made[a.i] = new SimAgent({ name: a.name, address: m.address, serverName: m.serverName, ca: Buffer.from(m.hubCaPem), cert: Buffer.from(pair.certPem), key: Buffer.from(pair.keyPem), heartbeatMs: m.heartbeatMs, log: log.child({ cluster: a.name }) });
        },
      );
      agents.push(...made);
      return { ms: performance.now() - t0 };
    }
    case "connect":
      for (const a of agents) a.start();
      return {};
    case "summary":
      return summary(m.since ?? 0);
    case "syncTimes":
      return agents.map((a) => a.lastSyncAt);
    case "receipts":
      return agents.map((a) => a.receipts.get(m.key) ?? []);
    case "cut":
      for (const a of agents) {
        if (m.how === "streams") a.cutStream();
        else a.cutConnection();
      }
      return {};
    case "restart": {
      const a = agents[m.index];
      if (a === undefined) throw new Error(`no agent ${m.index} in this worker`);
      const before = { bytes: a.manifestBytes, syncs: a.syncs };
      a.restart();
      const deadline = Date.now() + m.timeoutMs;
      while (a.syncs === before.syncs && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      if (a.syncs === before.syncs) throw new Error(`agent ${a.name} did not sync again within ${m.timeoutMs} ms of its restart`);
      return { manifestBytes: a.manifestBytes - before.bytes, held: a.held.size };
    }
    case "stop":
      for (const a of agents) a.stop();
      return {};
  }
}

process.on("message", (m: ToWorker) => {
  handle(m).then(
    (result) => process.send?.({ id: m.id, result } satisfies ToParent),
    (err: unknown) => process.send?.({ id: m.id, error: err instanceof Error ? err.message : String(err) } satisfies ToParent),
  );
});
// The parent is gone (however it ended): so are we.
process.on("disconnect", () => process.exit(0));
process.on("SIGTERM", () => process.exit(0));
