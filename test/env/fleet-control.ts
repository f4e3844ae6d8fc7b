// How `npm run env -- restart|stop <process>` reaches the running `up`: `up` owns every process
// (they die with it), so only `up` can start one again, or know that a stop was asked for (and
// not restart it). It listens on a Unix socket in its state directory; the command asks there and
// prints the answer.
import { rmSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import { join } from "node:path";
import { ManagedProcess } from "./managed-process.ts";

/** The socket `up` listens on, in its state directory. */
export function controlSocket(stateDir: string): string {
  return join(stateDir, "control.sock");
}

/** What a restart or stop request gets: the status code and the line to print. */
export interface RestartAnswer {
  status: number;
  message: string;
}

/** What the control socket does to a process. */
export type FleetAction = "restart" | "stop";

function lookUp(processes: ManagedProcess[], name: string): ManagedProcess | RestartAnswer {
  const p = processes.find((x) => x.name === name);
  if (p !== undefined) return p;
  const names = processes.map((x) => x.name).sort().join(", ");
  return { status: 404, message: `no process named ${JSON.stringify(name)}; the fleet has: ${names}` };
}

/** Stops the named process (SIGTERM, then SIGKILL after 5 s); beforeStop tells its watchers it is on purpose. */
export async function stopByName(processes: ManagedProcess[], name: string, beforeStop: (p: ManagedProcess) => void): Promise<RestartAnswer> {
  const p = lookUp(processes, name);
  if (!(p instanceof ManagedProcess)) return p;
  if (!p.running) return { status: 409, message: `${name} is not running; start it again with: npm run env -- restart ${name}` };
  beforeStop(p);
  await p.stop();
  return { status: 200, message: `${name} stopped; it stays down until: npm run env -- restart ${name}` };
}

/** Restarts the named process in place (same ports and data). */
export async function restartByName(processes: ManagedProcess[], name: string, onRestarted: (p: ManagedProcess) => Promise<void>): Promise<RestartAnswer> {
  const p = lookUp(processes, name);
  if (!(p instanceof ManagedProcess)) return p;
  try {
    await p.restart();
  } catch (err) {
    return { status: 500, message: `${name} did not come back: ${err instanceof Error ? err.message : String(err)}` };
  }
  await onRestarted(p);
  return { status: 200, message: `${name} restarted (pid ${p.pid})` };
}

/** Serves restart and stop requests on the state directory's socket until close(). */
export async function serveFleetControl(stateDir: string, handle: (action: FleetAction, name: string) => Promise<RestartAnswer>): Promise<{ close(): Promise<void> }> {
  const path = controlSocket(stateDir);
  rmSync(path, { force: true });
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fleet");
    const name = url.searchParams.get("process");
    const action = url.pathname.slice(1);
    if (req.method !== "POST" || (action !== "restart" && action !== "stop") || name === null) {
      res.writeHead(400).end("POST /restart?process=<name> or /stop?process=<name>\n");
      return;
    }
    handle(action, name).then(
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

/** Asks the `up` running from stateDir to restart or stop a process; rejects when no fleet listens there. */
export function requestAction(stateDir: string, action: FleetAction, name: string): Promise<RestartAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: controlSocket(stateDir), method: "POST", path: `/${action}?process=${encodeURIComponent(name)}`, timeout: 180_000 }, (res) => {
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
