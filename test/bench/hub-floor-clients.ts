// bench:hub-floor's callers: COUNT channels of their own (one TLS connection each, as each agent
// has), each with one open bidirectional stream, 50 opening at a time. Says {type:"ready", open}
// over IPC once every stream answered, then idles until disconnected.
//   node hub-floor-clients.ts ADDRESS CA_FILE CERT_FILE KEY_FILE COUNT
import { readFileSync } from "node:fs";
import { type ClientDuplexStream, credentials, makeGenericClientConstructor } from "@grpc/grpc-js";
import { FLOOR_SERVICE } from "./hub-floor-service.ts";

const [address = "", ca = "", cert = "", key = "", countText = "0"] = process.argv.slice(2);
const count = Number(countText);
const Floor = makeGenericClientConstructor(FLOOR_SERVICE, "Floor");
const creds = credentials.createSsl(readFileSync(ca), readFileSync(key), readFileSync(cert));
// The agent's channel options that shape its connection (agent/hub/hub-connection.ts).
const options = { "grpc.keepalive_time_ms": 20_000, "grpc.keepalive_timeout_ms": 10_000, "grpc.use_local_subchannel_pool": 1, "grpc.ssl_target_name_override": "localhost", "grpc.default_authority": "localhost" };
const held: ClientDuplexStream<Buffer, Buffer>[] = [];

async function openOne(): Promise<void> {
  const client = new Floor(address, creds, options);
  const call = (client as unknown as { stream(): ClientDuplexStream<Buffer, Buffer> }).stream();
  held.push(call);
  await new Promise<void>((resolve, reject) => {
    call.once("data", () => resolve());
    call.once("error", reject);
    call.write(Buffer.from("hi"));
  });
}

let next = 0;
await Promise.all(Array.from({ length: Math.min(50, count) }, async () => {
  while (next < count) {
    next++;
    await openOne();
  }
}));
process.send?.({ type: "ready", open: held.length });
process.on("disconnect", () => process.exit(0));
setInterval(() => undefined, 1 << 30);
