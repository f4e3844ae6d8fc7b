// One simulated agent for bench:fleet: the real agent's protocol module (HubConnection) with no
// member cluster behind it. It holds {work → hash}, acknowledges every WorkUpsert as applied and
// available, every WorkDelete as deleted, and sends a small heartbeat at the agent's interval.
import { AGENT_FEATURES, PROTOCOL_VERSION } from "../../shared/protocol.ts";
import type { Logger } from "pino";
import { AGENT_VERSION } from "../../agent/hub/hello.ts";
import { helloHashes } from "../../agent/judge/by-hash.ts";
import { HubConnection } from "../../agent/hub/hub-connection.ts";
import type { Heartbeat, Hello, WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";

/** When a Work's hash first reached this agent (epoch ms). */
export interface Receipt {
  hash: string;
  at: number;
}

/**
 * The Hello of an agent that restarted: it kept the hashes it applied (its records, each applied
 * in full) but not the manifests. The real agent's own rule (agent/judge/by-hash.ts) names each by its
 * hash and asks for no contents, so a restart resyncs by hash.
 */
export function restartHello(clusterName: string, hashes: Record<string, string>): Hello {
  const records = Object.entries(hashes).map(([key, hash]) => ({ key, hash, resources: [], whole: true }));
  return { clusterName, agentVersion: AGENT_VERSION, workHashes: helloHashes(records, [], new Set()), earlierRegistrationWorks: [], earlierRegistrationBits: Buffer.alloc(0), needsContents: false, protocolVersion: PROTOCOL_VERSION, features: [...AGENT_FEATURES] };
}

/** A plausible heartbeat of a one-node member (what agent/heartbeat/heartbeat.ts builds, at its smallest). */
export const SIMULATED_HEARTBEAT: Heartbeat = {
  kubernetesVersion: "v1.36.3",
  agentVersion: AGENT_VERSION,
  nodeSummary: { total: 1, ready: 1 },
  resourceSummary: { allocatable: { cpu: "4", memory: "16Gi", pods: "110" }, allocated: { cpu: "100m", memory: "128Mi", pods: "1" } },
  apiEnablements: ["apps/v1", "batch/v1", "networking.k8s.io/v1", "policy/v1", "rbac.authorization.k8s.io/v1", "v1"],
};

export interface SimAgentOptions {
  name: string;
  address: string;
  serverName: string;
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
  heartbeatMs: number;
  log: Logger;
}

export class SimAgent {
  readonly name: string;
  /** work key → hash held (acknowledged as applied). */
  readonly held = new Map<string, string>();
  /** work key → the first arrival of each hash it had, in order. */
  readonly receipts = new Map<string, Receipt[]>();
  private readonly deleted = new Set<string>();
  private readonly opts: SimAgentOptions;
  private connection: HubConnection | undefined;
  private beat: NodeJS.Timeout | undefined;
  /** Counters of the connections this agent closed (a reconnect makes a new one). */
  private pastConnects = 0;
  private pastManifestBytes = 0;
  /** Set by restart(): the next Hello is the restarted agent's. */
  private restarted = false;
  syncs = 0;
  lastSyncAt = 0;

  constructor(opts: SimAgentOptions) {
    this.opts = opts;
    this.name = opts.name;
  }

  get synced(): boolean {
    return this.connection?.connected ?? false;
  }

  get manifestBytes(): number {
    return this.pastManifestBytes + (this.connection?.manifestBytes ?? 0);
  }

  get connects(): number {
    return this.pastConnects + (this.connection?.connects ?? 0);
  }

  /** Opens a new channel (own TLS identity: each client gets its own credentials object, so grpc-js shares no subchannel). */
  start(): void {
    const o = this.opts;
    const connection: HubConnection = new HubConnection({
      address: o.address,
      serverName: o.serverName,
      ca: o.ca,
      cert: o.cert,
      key: o.key,
      log: o.log,
      handlers: {
        hello: () => {
          const hashes = Object.fromEntries(this.held);
          if (this.restarted) {
            this.restarted = false;
            return restartHello(this.name, hashes);
          }
          return { clusterName: this.name, agentVersion: AGENT_VERSION, workHashes: hashes, earlierRegistrationWorks: [], earlierRegistrationBits: Buffer.alloc(0), needsContents: false, protocolVersion: PROTOCOL_VERSION, features: [...AGENT_FEATURES] };
        },
        upsert: (u) => {
          const list = this.receipts.get(u.workKey) ?? [];
          if (list.at(-1)?.hash !== u.contentHash) list.push({ hash: u.contentHash, at: performance.timeOrigin + performance.now() });
          this.receipts.set(u.workKey, list);
          this.held.set(u.workKey, u.contentHash);
          this.deleted.delete(u.workKey);
          connection.reportStatus(u.workKey);
        },
        delete: (key) => {
          this.held.delete(key);
          this.deleted.add(key);
          connection.reportStatus(key);
        },
        syncDone: () => {
          this.syncs++;
          this.lastSyncAt = performance.timeOrigin + performance.now();
          // As the real agent: the hub keeps no status across a reconnect, so tell it everything again.
          for (const k of [...this.held.keys(), ...this.deleted]) connection.reportStatus(k);
          connection.heartbeat(SIMULATED_HEARTBEAT);
        },
        status: (key): WorkStatus | undefined => {
          const hash = this.held.get(key);
          if (hash !== undefined) return { workKey: key, observedHash: hash, applied: true, available: true, reason: "", message: "", manifests: [], deleted: false };
          if (this.deleted.has(key)) return { workKey: key, observedHash: "", applied: false, available: false, reason: "", message: "", manifests: [], deleted: true };
          return undefined;
        },
        live: (req) => Promise.resolve({ requestId: req.requestId, objects: req.resources.map(() => Buffer.alloc(0)), error: "" }),
      },
    });
    this.connection = connection;
    connection.start();
    if (this.beat === undefined) {
      // A random phase, as agents started at different times have.
      const first = setTimeout(() => {
        this.beat = setInterval(() => this.connection?.heartbeat(SIMULATED_HEARTBEAT), this.opts.heartbeatMs);
      }, Math.random() * this.opts.heartbeatMs);
      this.beat = first;
    }
  }

  /** Ends the stream only (the channel and its TLS session stay); the connection reconnects by itself. */
  cutStream(): void {
    this.connection?.resync();
  }

  /**
   * A network cut: the agent process lives on, its connection is gone. The stream ends and the
   * agent reconnects as after any stream end (its backoff, or the spread a hub told it) over a new
   * channel (new TCP and TLS), keeping what it holds.
   */
  cutConnection(): void {
    const c = this.connection;
    if (c === undefined) return;
    // A new channel for the next stream (the same certificate), then the stream ends.
    c.updateCredentials(this.opts.cert, this.opts.key);
    c.resync();
  }

  /** Closes the channel and opens a new one at once (new TCP and TLS), keeping what it holds: as a restarted process. */
  reconnect(): void {
    this.closeConnection();
    this.start();
  }

  /** As the real agent after a process restart: a new channel, and the restarted agent's Hello. */
  restart(): void {
    this.restarted = true;
    this.reconnect();
  }

  stop(): void {
    clearTimeout(this.beat);
    clearInterval(this.beat);
    this.beat = undefined;
    this.closeConnection();
  }

  private closeConnection(): void {
    const c = this.connection;
    if (c === undefined) return;
    this.pastConnects += c.connects;
    this.pastManifestBytes += c.manifestBytes;
    c.stop();
    this.connection = undefined;
  }
}
