import { createServer, type Server } from "node:http";

/** Serves /healthz (alive), /readyz (ready()) and /metrics (metrics() as Prometheus text) on host:port. */
export async function startHealthServer(listen: string, ready: () => boolean, metrics: () => string[]): Promise<{ port: number; close(): Promise<void> }> {
  const i = listen.lastIndexOf(":");
  const host = listen.slice(0, i).replace(/^\[|\]$/g, "");
  const port = Number(listen.slice(i + 1));
  if (i < 0 || !Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid listen address ${JSON.stringify(listen)}: want host:port`);
  const server: Server = createServer((req, res) => {
    const path = req.url?.split("?")[0];
    if (path === "/healthz") return void res.end("ok");
    if (path === "/readyz") {
      const ok = ready();
      res.statusCode = ok ? 200 : 503;
      return void res.end(ok ? "ok" : "not ready");
    }
    if (path === "/metrics") {
      res.setHeader("content-type", "text/plain; version=0.0.4");
      return void res.end(`${metrics().join("\n")}\n`);
    }
    res.statusCode = 404;
    res.end("not found");
  });
  await new Promise<void>((resolve, reject) => server.listen(port, host, resolve).once("error", reject));
  const address = server.address();
  return {
    port: typeof address === "object" && address !== null ? address.port : port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
