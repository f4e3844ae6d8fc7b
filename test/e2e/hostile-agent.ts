// A hostile agent for tests and benchmarks: a bare AgentHub client holding a member's real
// certificate (so it passes mTLS as that cluster) that sends whatever it is told, as fast as told.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type ClientDuplexStream, credentials } from "@grpc/grpc-js";
import { type AgentMessage, AgentHubClient, type ControlMessage, type WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";

/** One stream to the hub as `cluster`, with the certificate files `<certsDir>/<cluster>.crt|key`. */
export interface HostileStream {
  stream: ClientDuplexStream<AgentMessage, ControlMessage>;
  received: ControlMessage[];
  /** How the stream ended: the hub's status code and message ({} for a clean end). */
  ended: Promise<{ code?: number; details?: string }>;
  isEnded(): boolean;
  /** Writes m; resolves once the stream has room again (back-pressure), or at once. */
  send(m: AgentMessage): Promise<void>;
  close(): void;
}

export function hostileStream(opts: { hubPort: number; certsDir: string; cluster: string }): HostileStream {
  const read = (f: string) => readFileSync(join(opts.certsDir, f));
  const client = new AgentHubClient(`127.0.0.1:${opts.hubPort}`, credentials.createSsl(read("ca.crt"), read(`${opts.cluster}.key`), read(`${opts.cluster}.crt`)), {
    "grpc.ssl_target_name_override": "localhost",
    "grpc.max_send_message_length": -1,
  });
  const stream = client.connect();
  const received: ControlMessage[] = [];
  let done = false;
  stream.on("data", (m: ControlMessage) => received.push(m));
  const ended = new Promise<{ code?: number; details?: string }>((resolve) => {
    stream.on("error", (e: { code?: number; details?: string }) => {
      done = true;
      resolve({ code: e.code, details: e.details });
    });
    stream.on("end", () => {
      done = true;
      resolve({});
    });
  });
  return {
    stream,
    received,
    ended,
    isEnded: () => done,
    send: (m) =>
      new Promise<void>((resolve) => {
        if (done) return resolve();
        if (stream.write(m)) resolve();
        else {
          const go = () => resolve();
          stream.once("drain", go);
          void ended.then(go);
        }
      }),
    close: () => {
      stream.cancel();
      client.close();
    },
  };
}

/** A Hello for `cluster` holding nothing. */
export const helloAs = (cluster: string): AgentMessage => ({ kind: { $case: "hello", value: { clusterName: cluster, agentVersion: "hostile", workHashes: {}, earlierRegistrationWorks: [], earlierRegistrationBits: Buffer.alloc(0), needsContents: false, protocolVersion: 0, features: [] } } });

/** A report that the agent still holds a Work and has not removed it: in a non-target cluster, WaitingForRemoval. */
export const forgedReport = (workKey: string, deleted = false): AgentMessage => {
  const value: WorkStatus = { workKey, observedHash: "forged", applied: true, available: true, reason: "", message: "", manifests: [], deleted };
  return { kind: { $case: "workStatus", value } };
};

/**
 * Opens one agent stream to the hub with these credentials, says Hello as `cluster`, and resolves
 * with the gRPC status it ends with ({ code: -1 } when the hub keeps it open for 5 s: accepted).
 */
export async function helloOutcome(opts: { hubPort: number; certsDir: string; cert: Buffer; key: Buffer; cluster: string }): Promise<{ code: number; details: string }> {
  const client = new AgentHubClient(`127.0.0.1:${opts.hubPort}`, credentials.createSsl(readFileSync(join(opts.certsDir, "ca.crt")), opts.key, opts.cert), { "grpc.ssl_target_name_override": "localhost" });
  try {
    return await new Promise((resolve) => {
      const stream = client.connect();
      stream.on("data", () => undefined);
      stream.on("error", (e: { code: number; details: string }) => resolve({ code: e.code, details: e.details }));
      stream.on("end", () => resolve({ code: 0, details: "" }));
      stream.write({ kind: { $case: "hello", value: { clusterName: opts.cluster, agentVersion: "test", workHashes: {}, earlierRegistrationWorks: [], earlierRegistrationBits: Buffer.alloc(0), needsContents: true, protocolVersion: 0, features: [] } } });
      setTimeout(() => {
        stream.cancel();
        resolve({ code: -1, details: "still connected after 5 s" });
      }, 5000).unref();
    });
  } finally {
    client.close();
  }
}
