// A hub of the test's own, with the control plane's serving certificate, for an agent to stream
// to: it asks the agent for live objects and keeps the LiveResponse exactly as it came off the
// wire, to prove what a control plane would receive.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Server, ServerCredentials, type ServerDuplexStream, status as GrpcStatus } from "@grpc/grpc-js";
import { type AgentMessage, AgentHubService, type ControlMessage, type LiveResponse, type ResourceIdentifier } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { AgentMessage as AgentMessageCodec } from "../../shared/gen/flotilla/v1alpha1/agent.ts";

export interface OwnHub {
  port: number;
  /** The agent's answer, and the bytes of the message that carried it. */
  response: Promise<{ message: LiveResponse; wire: Buffer }>;
  close(): void;
}

/** Listens on 127.0.0.1; once an agent says Hello, asks it for `resources`. */
export async function ownHub(certsDir: string, resources: ResourceIdentifier[]): Promise<OwnHub> {
  const [ca, cert, key] = await Promise.all(["ca.crt", "hub.crt", "hub.key"].map((f) => readFile(join(certsDir, f))));
  let answered: (r: { message: LiveResponse; wire: Buffer }) => void = () => undefined;
  const response = new Promise<{ message: LiveResponse; wire: Buffer }>((resolve) => (answered = resolve));
  const server = new Server();
  server.addService(AgentHubService, {
    connect: (call: ServerDuplexStream<AgentMessage, ControlMessage>) => {
      call.on("error", () => undefined);
      call.on("data", (m: AgentMessage) => {
        if (m.kind?.$case === "hello") call.write({ kind: { $case: "liveRequest", value: { requestId: "own-hub-1", resources } } });
        if (m.kind?.$case === "liveResponse") answered({ message: m.kind.value, wire: Buffer.from(AgentMessageCodec.encode(m).finish()) });
      });
    },
    renew: (_call: unknown, callback: (err: { code: number; details: string }) => void) => callback({ code: GrpcStatus.UNIMPLEMENTED, details: "not this hub" }),
  });
  const creds = ServerCredentials.createSsl(ca as Buffer, [{ cert_chain: cert as Buffer, private_key: key as Buffer }], true);
  const port = await new Promise<number>((resolve, reject) => server.bindAsync("127.0.0.1:0", creds, (e, p) => (e ? reject(e) : resolve(p))));
  return { port, response, close: () => server.forceShutdown() };
}
