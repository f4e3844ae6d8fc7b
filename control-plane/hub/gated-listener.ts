// Issue 42: the gRPC port's listener when agent admissions are limited. The hub accepts TCP itself
// and hands a connection to grpc-js (Server.createConnectionInjector: grpc-js's own HTTP/2 TLS
// server, which runs the handshake on it and gives calls the client certificate as ever) once it
// has a token of the admission bucket. Until then the connection waits, paused: nothing of it is
// read, so no handshake runs, and a reconnect storm's handshakes are spread at the rate instead of
// run all at once on the event loop. Beyond maxWaitingConnections a connection is closed before any
// TLS, and the peer backs off. Admin and peer-replica connections share the port: before TLS
// nothing tells them from agents, so they wait in the same queue (--agent-admission-before-tls=false
// admits streams only, after TLS, as before).
import { createServer, type Socket } from "node:net";
import type { Server, ServerCredentials } from "@grpc/grpc-js";
import type { Logger } from "pino";
import { splitHostPort } from "../../shared/listen-address.ts";
import { counterOf, gaugeOf } from "../../shared/metrics.ts";
import { maxWaitingConnections } from "./admission-gate.ts";
import type { AgentAdmissions } from "./agent-admissions.ts";
import { FairQueue } from "./fair-queue.ts";

/** The listening port, and close(): stops accepting and closes the connections still waiting (the gRPC server closes the others). */
export interface GatedListener {
  port: number;
  /** Connections waiting below TLS now. */
  readonly waiting: number;
  close(): void;
}

/**
 * The kernel's queue of connections not yet accepted (the kernel caps it at net.core.somaxconn).
 * Node's default, 511, overflows in a reconnect storm whenever the event loop is busy for longer
 * than 511 arrivals take: the kernel then drops the connection's last ACK, and the agent's
 * ClientHello is later answered with a reset (bench:fleet at 5,000: 17,359 listen overflows and
 * ~1,000 streams reset, each agent then back through its own backoff). Accepting is cheap here (a
 * paused socket), so a deep queue costs nothing but the kernel's few hundred bytes per connection.
 */
export const LISTEN_BACKLOG = 65_535;

/** A peer as grpc-js's call.getPeer() names it, so that the hub knows a stream's connection. */
function peerOf(socket: Socket): string {
  return `${socket.remoteAddress}:${socket.remotePort}`;
}

/** Listens on `listen` (host:port) for the server's services, admitting new connections through `admissions`. */
export async function listenGated(opts: { server: Server; credentials: ServerCredentials; listen: string; admissions: AgentAdmissions; log: Logger }): Promise<GatedListener> {
  const { admissions } = opts;
  const injector = opts.server.createConnectionInjector(opts.credentials);
  // Per source address, round-robin, bounded (fair-queue.ts): one host holding connections open
  // delays others by a turn, and a full queue drops that host's newest first.
  const waiting = new FairQueue<Socket>(maxWaitingConnections(admissions.rate));
  let timer: NodeJS.Timeout | undefined;
  let closedUnread = 0;
  const next = () => {
    timer = undefined;
    for (let socket = waiting.peek(); socket !== undefined; socket = waiting.peek()) {
      const waitMs = socket.destroyed ? 0 : admissions.admitConnection(peerOf(socket));
      if (waitMs > 0) {
        timer = setTimeout(next, waitMs);
        break;
      }
      waiting.shift();
      if (!socket.destroyed) injector.injectConnection(socket);
    }
  };
  const tcp = createServer({ pauseOnConnect: true }, (socket) => {
    const peer = peerOf(socket);
    socket.on("error", () => undefined);
    const dropped = waiting.push(socket.remoteAddress ?? "", socket);
    if (dropped !== undefined) {
      closedUnread++;
      dropped.destroy();
      if (dropped === socket) return;
    }
    socket.once("close", () => admissions.connectionClosed(peer));
    if (timer === undefined) next();
  });
  const { host, port } = splitHostPort(opts.listen, "--grpc-listen");
  await new Promise<void>((resolve, reject) => {
    tcp.once("error", reject);
    tcp.listen({ host, port, backlog: LISTEN_BACKLOG }, () => {
      tcp.off("error", reject);
      // An accept that failed (out of file descriptors): that connection is lost, the listener serves on.
      tcp.on("error", (err) => opts.log.warn({ err: err.message }, "accepting a connection to the gRPC port failed"));
      resolve();
    });
  });
  gaugeOf("flotilla_agent_connections_waiting", "Connections to the gRPC port waiting for their TLS handshake, admitted at --max-agent-admissions-per-second (issue 42).", () => waiting.size);
  counterOf("flotilla_agent_connections_refused_total", "Connections to the gRPC port closed before their TLS handshake: more were waiting than a minute of admissions (the newest of the address holding the most goes).", () => closedUnread);
  const address = tcp.address();
  return {
    port: typeof address === "object" && address !== null ? address.port : port,
    get waiting() {
      return waiting.size;
    },
    close: () => {
      clearTimeout(timer);
      // The port is free at once; the connections handed on are the gRPC server's to close.
      tcp.close();
      for (const s of waiting.drain()) s.destroy();
    },
  };
}
