// How `npm run env -- restart <process>` reaches the running `up`: `up` owns every process (they
// die with it), so only `up` can start one again. It listens on a Unix socket in its state
// directory; the restart command asks there and prints the answer.
import { rmSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import { join } from "node:path";
import type { ManagedProcess } from "./managed-process.ts";

/** The socket `up` listens on, in its state directory. */
export function controlSocket(stateDir: string): string {
  return join(stateDir, "control.sock");
}

/** What a restart request gets: the status code and the line to print. */
export interface RestartAnswer {
  status: number;
  message: string;
}

/** Restarts the named process in place (same ports and data); the pure part is the lookup. */
export async function restartByName(processes: ManagedProcess[], name: string, onRestarted: (p: ManagedProcess) => Promise<void>): Promise<RestartAnswer> {
  const p = processes.find((x) => x.name === name);
  if (p === undefined) {
    const names = processes.map((x) => x.name).sort().join(", ");
    return { status: 404, message: `no process named ${JSON.stringify(name)}; the fleet has: ${names}` };
  }
  try {
    await p.restart();
  } catch (err) {
    return { status: 500, message: `${name} did not come back: ${err instanceof Error ? err.message : String(err)}` };
  }
  await onRestarted(p);
  return { status: 200, message: `${name} restarted (pid ${p.pid})` };
}

/** Serves restart requests on the state directory's socket until close(). */
export async function serveFleetControl(stateDir: string, restart: (name: string) => Promise<RestartAnswer>): Promise<{ close(): Promise<void> }> {
  const path = controlSocket(stateDir);
  rmSync(path, { force: true });
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fleet");
    const name = url.searchParams.get("process");
    if (req.method !== "POST" || url.pathname !== "/restart" || name === null) {
      res.writeHead(400).end("POST /restart?process=<name>\n");
      return;
    }
    restart(name).then(
      (a) => res.writeHead(a.status, { "content-type": "text/plain" }).end(`${a.message}\n`),
      (err: unknown) => res.writeHead(500).end(`${err instanceof Error ? err.message : String(err)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => resolve());
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        rmSync(path, { force: true });
      }),
  };
}

/** Asks the `up` running from stateDir to restart a process; rejects when no fleet listens there. */
export function requestRestart(stateDir: string, name: string): Promise<RestartAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: controlSocket(stateDir), method: "POST", path: `/restart?process=${encodeURIComponent(name)}`, timeout: 180_000 }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (s: string) => (body += s));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, message: body.trim() }));
    });
    req.on("timeout", () => req.destroy(new Error("no answer from the fleet within 180 s")));
    req.on("error", (err: NodeJS.ErrnoException) =>
      reject(err.code === "ENOENT" || err.code === "ECONNREFUSED" ? new Error(`no fleet runs from ${stateDir} (start one with \`npm run up\`)`) : err),
    );
    req.end();
  });
}
