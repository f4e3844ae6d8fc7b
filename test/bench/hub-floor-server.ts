// bench:hub-floor's server (issue 42): a bare gRPC server with the hub's options and mutual TLS,
// whose only method holds each caller's bidirectional stream open, as the hub holds an agent's.
// Started by hub-floor.ts with an IPC channel; answers "memory" with process.memoryUsage().
//   node hub-floor-server.ts CA_FILE CERT_FILE KEY_FILE
import { readFileSync } from "node:fs";
import { Server, ServerCredentials, type ServerDuplexStream } from "@grpc/grpc-js";
import { FLOOR_SERVICE } from "./hub-floor-service.ts";

const [ca = "", cert = "", key = ""] = process.argv.slice(2);
// The hub's options (control-plane.ts): keepalive every 30 s, 10 s to answer, 4 MiB messages.
const server = new Server({ "grpc.keepalive_time_ms": 30_000, "grpc.keepalive_timeout_ms": 10_000, "grpc.max_receive_message_length": 4 * 1024 * 1024 });
const streams = new Set<ServerDuplexStream<Buffer, Buffer>>();
server.addService(FLOOR_SERVICE, {
  stream: (call: ServerDuplexStream<Buffer, Buffer>) => {
    streams.add(call);
    // One answer to the first message: the caller knows its stream is up.
    call.once("data", () => call.write(Buffer.from("ok")));
    const gone = () => streams.delete(call);
    call.on("end", () => {
      gone();
      call.end();
    });
    call.on("error", gone);
    call.on("cancelled", gone);
  },
});
const creds = ServerCredentials.createSsl(readFileSync(ca), [{ cert_chain: readFileSync(cert), private_key: readFileSync(key) }], true);
server.bindAsync("127.0.0.1:0", creds, (err, port) => {
  if (err) throw err;
  process.send?.({ type: "listening", port });
});
process.on("message", (m: { type: string; gc?: boolean }) => {
  if (m.type !== "memory") return;
  if (m.gc === true) (globalThis as { gc?: () => void }).gc?.();
  process.send?.({ type: "memory", streams: streams.size, ...process.memoryUsage() });
});
process.on("disconnect", () => process.exit(0));
