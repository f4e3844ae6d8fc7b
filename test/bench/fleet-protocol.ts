// The messages between bench:fleet (fleet-scale.ts) and its agent workers (fleet-agents.ts).
import type { KeyPair } from "../../shared/pki.ts";

/** Parent → worker; each carries an id that its answer repeats. */
export type ToWorker = { id: number } & (
  | {
      type: "setup";
      /** The Clusters this worker simulates, with the uid each certificate is bound to. */
      agents: { name: string; uid: string }[];
      /** The CA that signs agent certificates. */
      ca: KeyPair;
      hubCaPem: string;
      address: string;
      serverName: string;
      heartbeatMs: number;
      logFile: string;
      logLevel: string;
    }
  | { type: "connect" }
  /** since: count the agents synced since this time (epoch ms). */
  | { type: "summary"; since?: number }
  /** Per agent, when it last synced (epoch ms; 0: never). */
  | { type: "syncTimes" }
  /** Per agent, the arrivals of one Work's hashes. */
  | { type: "receipts"; key: string }
  /** Cut every agent's stream (`streams`: the channel stays) or channel (`connections`: new TCP and TLS). */
  | { type: "cut"; how: "streams" | "connections" }
  /** Restart the agent at this index as the real agent restarts; answers once it synced again. */
  | { type: "restart"; index: number; timeoutMs: number }
  | { type: "stop" }
);

/** Worker → parent. */
export type ToParent = { id: number; result?: unknown; error?: string };

/** A worker's agents, summed. */
export interface AgentsSummary {
  agents: number;
  synced: number;
  connects: number;
  syncs: number;
  manifestBytes: number;
  held: number;
  minHeld: number;
  /** The latest SyncDone any of them received (epoch ms). */
  lastSyncAt: number;
  /** Agents synced now whose last SyncDone came at or after the request's `since`. */
  syncedSince: number;
}
