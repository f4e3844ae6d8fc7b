// Ports for the test environment's listeners.
//
// Picked below the kernel's ephemeral range (net.ipv4.ip_local_port_range), where connect() never
// binds: a port a stopped control plane let go stays free for its restart, however many outgoing
// connections the suite's other jobs open meanwhile. Under the suite runner each port is reserved
// across its processes too (a file in FLOTILLA_TEST_PORT_DIR, made exclusively), so no other job
// hands it out while its owner still runs. A port found listening is never handed out.
import { openSync, closeSync, readFileSync, unlinkSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

/** The lowest port picked: above the registered ports most local services use. */
export const TEST_PORT_LOW = 10_000;
/** Below this many ports under the ephemeral range, ports come from the kernel (listen on 0) instead. */
export const TEST_PORT_MIN_RANGE = 2_000;
/** How many ports are tried at random before falling back to the kernel's pick. */
const PICK_ATTEMPTS = 500;

/** Pure: the ports picked from, [low, high], given /proc/sys/net/ipv4/ip_local_port_range; undefined when too few. */
export function testPortRange(ephemeralRange: string): { low: number; high: number } | undefined {
  const ephemeralLow = Number(ephemeralRange.trim().split(/\s+/)[0]);
  if (!Number.isInteger(ephemeralLow)) return undefined;
  const high = ephemeralLow - 1;
  return high - TEST_PORT_LOW + 1 >= TEST_PORT_MIN_RANGE ? { low: TEST_PORT_LOW, high } : undefined;
}

function readRange(): { low: number; high: number } | undefined {
  try {
    return testPortRange(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8"));
  } catch {
    return undefined;
  }
}

const range = readRange();
const handedOut = new Set<number>();
const reservations: string[] = [];
let releaseOnExit = false;

let warned = false;
function warnOnce(what: string): void {
  if (warned) return;
  warned = true;
  process.stderr.write(`test/env/free-port.ts: ${what}\n`);
}

/**
 * Reserves port across the suite's processes; true when no other process holds it. A directory
 * that cannot take the file (gone at the run's end, out of file descriptors) reserves nothing,
 * said once on stderr: the port is still below the ephemeral range and found free.
 */
function reserve(dir: string | undefined, port: number): boolean {
  if (dir === undefined || dir === "") return true;
  const path = join(dir, String(port));
  try {
    closeSync(openSync(path, "wx"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    warnOnce(`cannot reserve ports in ${dir} (${String(err)}): handing them out unreserved`);
    return true;
  }
  reservations.push(path);
  if (!releaseOnExit) {
    releaseOnExit = true;
    // This process's ports are free for others once it ends (its children ended with it: cleanup.ts).
    process.on("exit", () => {
      for (const p of reservations) {
        try {
          unlinkSync(p);
        } catch {
          // The runner removed the directory first.
        }
      }
    });
  }
  return true;
}

/** Whether this process can listen on 127.0.0.1:port right now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** The kernel's pick (listen on port 0), from its ephemeral range. */
function kernelPort(): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const p = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(p));
    });
  });
}

/**
 * A TCP port on 127.0.0.1 that nothing listens on right now, never the same twice in one process
 * nor, under the suite runner, in two of its processes at once. A program outside the suite may
 * still take it before our child binds it; starters retry on bind failure.
 */
export async function freePort(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const dir = env.FLOTILLA_TEST_PORT_DIR;
  if (range !== undefined) {
    for (let i = 0; i < PICK_ATTEMPTS; i++) {
      const port = range.low + Math.floor(Math.random() * (range.high - range.low + 1));
      if (handedOut.has(port)) continue;
      if (!reserve(dir, port)) continue;
      // Reserved even when something listens there: no one in the suite should try it again.
      handedOut.add(port);
      if (await canListen(port)) return port;
    }
  }
  warnOnce(range === undefined ? "no room below the kernel's ephemeral range: the kernel picks ports, in that range" : `no free port in ${PICK_ATTEMPTS} picks below the ephemeral range: the kernel picks, in it`);
  for (;;) {
    const port = await kernelPort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
export function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(true));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(false)));
  });
}
