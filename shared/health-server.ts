import { createServer, type Server } from "node:http";
import { registry } from "./metrics.ts";

/** Serves /healthz (alive), /readyz (ready()) and /metrics (the process's metric registry) on host:port. */
export async function startHealthServer(listen: string, ready: () => boolean): Promise<{ port: number; close(): Promise<void> }> {
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
      registry.metrics().then(
        (text) => {
          res.setHeader("content-type", registry.contentType);
          res.end(text);
        },
        (err: unknown) => {
          res.statusCode = 500;
          res.end(`collecting metrics failed: ${err instanceof Error ? err.message : String(err)}\n`);
        },
      );
      return;
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
