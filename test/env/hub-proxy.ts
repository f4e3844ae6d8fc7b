// A TCP forwarder on a loopback port in front of every control-plane replica's hub, as a
// Kubernetes Service is in a real deployment: agents dial one address, and each new connection
// goes to a replica that accepts it. TLS passes through untouched (mTLS stays end to end).
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { LISTEN_BACKLOG } from "../../control-plane/hub/gated-listener.ts";

export interface HubProxy {
  port: number;
  /** Adds a replica's hub port to the backends. */
  add(port: number): void;
  /** Closes the listener and every forwarded connection. */
  close(): Promise<void>;
  /** The processes forwarding, when not this one (hub-proxy-processes.ts). */
  pids?: number[];
}

const connectTimeoutMs = 2_000;

/** Where the proxy listens: a free loopback port by default; with reusePort, one other processes listen on too (hub-proxy-processes.ts). */
export interface ProxyListen {
  port?: number;
  reusePort?: boolean;
}

/** Listens on a free loopback port; connections go round-robin to the backends, skipping those that refuse. */
export async function startHubProxy(backends: number[], listen: ProxyListen = {}): Promise<HubProxy> {
  const ports = [...backends];
  const open = new Set<Socket>();
  let next = 0;

  const dial = (attempt: number): Promise<Socket> =>
    new Promise((resolve, reject) => {
      if (ports.length === 0 || attempt >= ports.length) return reject(new Error("no replica accepts connections"));
      const port = ports[(next + attempt) % ports.length] as number;
      const upstream = createConnection({ host: "127.0.0.1", port });
      const timer = setTimeout(() => upstream.destroy(new Error("connect timeout")), connectTimeoutMs);
      const failed = () => {
        clearTimeout(timer);
        dial(attempt + 1).then(resolve, reject);
      };
      upstream.once("error", failed);
      upstream.once("connect", () => {
        clearTimeout(timer);
        upstream.off("error", failed);
        next = (next + attempt + 1) % ports.length;
        resolve(upstream);
      });
    });

  const server: Server = createServer((client) => {
    open.add(client);
    client.pause();
    client.on("error", () => client.destroy());
    client.on("close", () => open.delete(client));
    dial(0).then(
      (upstream) => {
        open.add(upstream);
        upstream.on("close", () => {
          open.delete(upstream);
          client.destroy();
        });
        upstream.on("error", () => upstream.destroy());
        client.on("close", () => upstream.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      },
      () => client.destroy(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    // As deep an accept queue as the hubs behind it: with Node's default of 511, a storm of
    // thousands of agents is reset by the kernel here before any replica sees it.
    server.listen({ port: listen.port ?? 0, host: "127.0.0.1", backlog: LISTEN_BACKLOG, ...(listen.reusePort === true ? { reusePort: true } : {}) }, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("hub proxy: no port");
  return {
    port: address.port,
    add: (port) => void ports.push(port),
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
