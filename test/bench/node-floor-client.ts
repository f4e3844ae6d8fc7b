// Node.js's floor for an agent (bench:agent-rss, issue 42): a process that only holds a TLS gRPC
// channel open to the hub, with an agent's certificate, bundled as the agent is (scripts/bundle.ts).
//   node <bundle> HOST:PORT SERVER_NAME CA_FILE CERT_FILE KEY_FILE
import { readFileSync } from "node:fs";
import { Client, credentials } from "@grpc/grpc-js";

const [address = "", serverName = "", ca = "", cert = "", key = ""] = process.argv.slice(2);
const client = new Client(address, credentials.createSsl(readFileSync(ca), readFileSync(key), readFileSync(cert)), { "grpc.ssl_target_name_override": serverName, "grpc.default_authority": serverName });
client.waitForReady(Date.now() + 30_000, (err) => {
  if (err) {
    console.error(`the channel to ${address} is not ready: ${err.message}`);
    process.exit(1);
  }
  console.log("ready");
});
setInterval(() => undefined, 1 << 30);
