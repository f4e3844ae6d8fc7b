// Assembles the agent: the applied-record store, the work runner, the object watch, heartbeats
// and the hub stream.
import { readFile } from "node:fs/promises";
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { KubeObject } from "../shared/api/types.ts";
import { Discovery } from "../shared/discovery.ts";
import { startHealthServer } from "../shared/health-server.ts";
import { KubeRest } from "../shared/kube-rest.ts";
import { AppliedStore } from "./applied-store.ts";
import { HeartbeatSource } from "./heartbeat.ts";
import { HubConnection } from "./hub-connection.ts";
import { ObjectWatch } from "./object-watch.ts";
import { WorkRunner } from "./work-runner.ts";

export const AGENT_VERSION = "0.1.0";

export interface AgentOptions {
  kc: KubeConfig;
  log: Logger;
  clusterName: string;
  hubAddress: string;
  hubServerName?: string;
  tls: { caFile: string; certFile: string; keyFile: string };
  stateNamespace: string;
  heartbeatMs: number;
  healthListen: string;
  workers: number;
}

export interface RunningAgent {
  connection: HubConnection;
  runner: WorkRunner;
  applied: AppliedStore;
  healthPort: number | undefined;
  stop(): Promise<void>;
}

/** Starts the agent; resolves once its own caches are loaded and the stream is being opened. */
export async function startAgent(opts: AgentOptions): Promise<RunningAgent> {
  const { kc, log } = opts;
  const rest = new KubeRest(kc, { maxSockets: 16 });
  const discovery = new Discovery(rest);
  const applied = new AppliedStore({ rest, namespace: opts.stateNamespace, log });
  await applied.load();
  log.info({ works: applied.keys().length }, "applied records loaded");

  const objects = new ObjectWatch({ kc, rest, log, onChange: (key) => runner.controller.enqueue(key) });
  const runner: WorkRunner = new WorkRunner({ rest, discovery, applied, objects, log, workers: opts.workers, report: (key) => connection.reportStatus(key) });
  const heartbeats = new HeartbeatSource({ kc, rest, log, agentVersion: AGENT_VERSION });
  await heartbeats.start();

  const [ca, cert, key] = await Promise.all([opts.tls.caFile, opts.tls.certFile, opts.tls.keyFile].map((f) => readFile(f)));
  const connection: HubConnection = new HubConnection({
    address: opts.hubAddress,
    serverName: opts.hubServerName,
    ca: ca as Buffer,
    cert: cert as Buffer,
    key: key as Buffer,
    log,
    handlers: {
      hello: () => {
        // Without manifests in memory (a restart) the agent says what it applied and asks for contents.
        const needsContents = !runner.holdsContents;
        return { clusterName: opts.clusterName, agentVersion: AGENT_VERSION, workHashes: needsContents ? applied.hashes() : runner.heldHashes(), needsContents };
      },
      upsert: (u) => {
        try {
          const manifests = u.manifests.map((b) => JSON.parse(Buffer.from(b).toString("utf8")) as KubeObject);
          runner.upsert({ key: u.workKey, hash: u.contentHash, manifests, conflictResolution: u.conflictResolution || "Abort" });
        } catch (err) {
          log.error({ work: u.workKey, err: String(err) }, "the hub sent a manifest that is not JSON; ignoring the work");
          runner.reject(u.workKey, u.contentHash, "the hub sent a manifest that is not valid JSON");
        }
      },
      delete: (k, preserve) => runner.delete(k, preserve),
      syncDone: () => {
        // The hub keeps no status across our reconnect: tell it everything again.
        runner.forgetReported();
        for (const k of runner.allStatusKeys()) connection.reportStatus(k);
        void sendHeartbeat();
      },
      status: (k) => runner.status(k),
    },
  });
  const sendHeartbeat = async () => {
    try {
      connection.heartbeat(await heartbeats.build());
    } catch (err) {
      log.warn({ err: String(err) }, "building a heartbeat failed");
    }
  };
  runner.controller.start();
  connection.start();
  const beat = setInterval(() => void sendHeartbeat(), opts.heartbeatMs);

  const health =
    opts.healthListen === ""
      ? undefined
      : await startHealthServer(
          opts.healthListen,
          () => connection.connected,
          () => [
            `flotilla_agent_connected ${connection.connected ? 1 : 0}`,
            `flotilla_agent_stream_connects_total ${connection.connects ?? 0}`,
            `flotilla_agent_upserts_received_total ${connection.upserts ?? 0}`,
            `flotilla_agent_manifest_bytes_received_total ${connection.manifestBytes ?? 0}`,
            `flotilla_agent_applies_total ${runner.stats.applies}`,
            `flotilla_agent_deletes_total ${runner.stats.deletes}`,
            `flotilla_agent_state_writes_total ${applied.writes}`,
            `flotilla_agent_works ${Object.keys(runner.heldHashes()).length}`,
            `flotilla_agent_work_queue_depth ${runner.controller.queue.length + runner.controller.queue.inFlight}`,
          ],
        );

  return {
    connection,
    runner,
    applied,
    healthPort: health?.port,
    stop: async () => {
      clearInterval(beat);
      connection.stop();
      await runner.controller.stop();
      await applied.flush().catch(() => undefined);
      objects.stop();
      heartbeats.stop();
      rest.close();
      await health?.close();
    },
  };
}
