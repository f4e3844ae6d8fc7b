// One process of a hub proxy spread over several (hub-proxy-processes.ts): listens on the port
// its parent gives, with SO_REUSEPORT, forwards to the backends, takes more over IPC, and exits
// when its parent goes.
import { startHubProxy } from "./hub-proxy.ts";

const [port, ...backends] = process.argv.slice(2).map(Number);
const proxy = await startHubProxy(backends, { port: port ?? 0, reusePort: true });
process.on("message", (m: { add?: number }) => {
  if (typeof m.add === "number") proxy.add(m.add);
});
process.on("disconnect", () => void proxy.close().finally(() => process.exit(0)));
process.send?.({ listening: proxy.port });
