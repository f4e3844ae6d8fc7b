import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { createConnection, createServer, type Server } from "node:net";
import { after, describe, it } from "node:test";
import { LISTEN_BACKLOG } from "../../control-plane/hub/gated-listener.ts";
import { type HubProxy, startHubProxy } from "./hub-proxy.ts";
import { startHubProxyProcesses } from "./hub-proxy-processes.ts";
import { listenBacklog, somaxconn } from "./listen-backlog.ts";

async function echoServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => socket.pipe(socket));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { server, port: address.port };
}

async function roundTrip(port: number, text: string): Promise<string> {
  const socket = createConnection({ host: "127.0.0.1", port });
  await once(socket, "connect");
  socket.write(text);
  // A connection the proxy closes (no backend took it) fails the test at once, not at its timeout.
  const answer = await Promise.race([once(socket, "data").then(([data]) => (data as Buffer).toString()), once(socket, "close").then(() => Promise.reject(new Error(`the proxy closed the connection that sent ${text}`)))]);
  socket.destroy();
  return answer;
}

describe("hub proxy", () => {
  const closers: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const close of closers.reverse()) await close();
  });

  it("listens with the hub's deep accept queue, not Node's default of 511", async () => {
    const proxy: HubProxy = await startHubProxy([]);
    closers.push(() => proxy.close());
    const backlog = listenBacklog(proxy.port);
    assert.equal(backlog, Math.min(LISTEN_BACKLOG, somaxconn()));
    assert.ok(backlog > 511, `deeper than 511 (somaxconn here: ${somaxconn()})`);
  });

  it("forwards to a backend that accepts, skipping one that refuses", async () => {
    const refusing = await echoServer();
    const refusedPort = refusing.port;
    await new Promise<void>((resolve) => refusing.server.close(() => resolve()));
    const echo = await echoServer();
    closers.push(() => new Promise<void>((resolve) => echo.server.close(() => resolve())));
    const proxy = await startHubProxy([refusedPort, echo.port]);
    closers.push(() => proxy.close());
    assert.equal(await roundTrip(proxy.port, "ping"), "ping");
    assert.equal(await roundTrip(proxy.port, "pong"), "pong");
  });

  it("spread over processes on one port: each forwards, one added backend reaches all, and close leaves no process", async () => {
    const echo = await echoServer();
    closers.push(() => new Promise<void>((resolve) => echo.server.close(() => resolve())));
    const proxy = await startHubProxyProcesses([], 2);
    let closed = false;
    closers.push(() => (closed ? Promise.resolve() : proxy.close()));
    proxy.add(echo.port);
    await new Promise((r) => setTimeout(r, 200));
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => roundTrip(proxy.port, `m${i}`)));
    assert.deepEqual(answers, Array.from({ length: 20 }, (_, i) => `m${i}`));
    const listeners = execFileSync("ss", ["-ltnpH", `sport = :${proxy.port}`], { encoding: "utf8" }).trim().split("\n");
    assert.equal(listeners.length, 2, `two sockets listen on the port (ss: ${listeners.join(" | ")})`);
    await proxy.close();
    closed = true;
    assert.equal(execFileSync("ss", ["-ltnH", `sport = :${proxy.port}`], { encoding: "utf8" }).trim(), "", "nothing listens after close");
  });
});
