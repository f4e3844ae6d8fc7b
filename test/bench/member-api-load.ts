// bench:member-api's clients: C concurrent `kubectl get pods -A` (timed lists), C concurrent
// watches timed from a write in the member to each watch's event, and a background load of C
// clients (list loops and watches) that runs until stopped, counting what it got.
import { type Endpoint, listPods, openWatch, type Watch } from "./member-api-http.ts";

/** Latencies of one side at one level, and the answers that were not 200 (by status, or the error). */
export interface Timed {
  ms: number[];
  failed: Map<string, number>;
}

const fail = (t: Timed, why: string) => t.failed.set(why, (t.failed.get(why) ?? 0) + 1);

/** `total` lists spread over `clients` concurrent clients (each does its share in turn). */
export async function listLevel(ep: Endpoint, clients: number, total: number): Promise<Timed> {
  const t: Timed = { ms: [], failed: new Map() };
  const each = Math.ceil(total / clients);
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = 0; i < each; i++) {
        try {
          const a = await listPods(ep);
          if (a.status === 200) t.ms.push(a.ms);
          else fail(t, `HTTP ${a.status}`);
        } catch (err) {
          fail(t, (err as Error).message.slice(0, 80));
        }
      }
    }),
  );
  return t;
}

/** One sample's wait: resolves when every watch saw value `v`, or after timeoutMs with those that did. */
interface Expectation {
  v: string;
  at: Map<number, number>;
  done: () => void;
}

/**
 * `clients` watches on each endpoint of `sides` on the ConfigMap `name` in `namespace`; `changes`
 * times `write(v)` changes its data.v, each timed until every watch on both sides shows it (one
 * sample per watch; a watch that does not within timeoutMs counts as missed, one that could not
 * be opened as failed once).
 */
export async function watchLevel(sides: Record<string, Endpoint>, clients: number, o: { namespace: string; name: string; changes: number; timeoutMs: number; write: (v: string) => Promise<void>; tag: string }): Promise<Record<string, Timed & { missed: number }>> {
  const path = `/api/v1/namespaces/${o.namespace}/configmaps?watch=1&allowWatchBookmarks=true&fieldSelector=metadata.name%3D${o.name}`;
  const names = Object.keys(sides);
  const result = Object.fromEntries(names.map((n) => [n, { ms: [] as number[], failed: new Map<string, number>(), missed: 0 }]));
  let current: Expectation | undefined;
  const watches: { side: string; w: Watch }[] = [];
  let live = 0;
  let id = 0;
  for (const side of names) {
    for (let i = 0; i < clients; i++) {
      const key = id++;
      const w = openWatch(sides[side] as Endpoint, path, (e, at) => {
        const x = current;
        if (x === undefined || e.object.data?.v !== x.v || x.at.has(key)) return;
        x.at.set(key, at);
        if (x.at.size === live) x.done();
      });
      watches.push({ side, w });
    }
  }
  try {
    const opened = await Promise.allSettled(watches.map((x) => x.w.ready));
    opened.forEach((o, key) => {
      if (o.status === "rejected") fail(result[(watches[key] as { side: string }).side] as Timed, `watch: ${String((o.reason as Error).message).slice(0, 80)}`);
    });
    live = opened.filter((o) => o.status === "fulfilled").length;
    for (let i = 0; i < o.changes; i++) {
      const x: Expectation = { v: `${o.tag}-${i}`, at: new Map(), done: () => undefined };
      const seen = new Promise<void>((resolve) => {
        x.done = resolve;
        setTimeout(resolve, o.timeoutMs);
      });
      current = x;
      const t0 = performance.now();
      await o.write(x.v);
      await seen;
      current = undefined;
      watches.forEach(({ side, w }, key) => {
        if (opened[key]?.status !== "fulfilled") return;
        const r = result[side] as Timed & { missed: number };
        const at = x.at.get(key);
        if (at !== undefined) r.ms.push(at - t0);
        else if (!w.open()) fail(r, "the watch ended");
        else r.missed++;
      });
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 80));
    }
  } finally {
    for (const x of watches) x.w.close();
  }
  return result;
}

/** What a background load did while it ran. */
export interface LoadFigures {
  seconds: number;
  lists: number;
  /** Watch events the load's watches received. */
  events: number;
  failed: Map<string, number>;
}

/**
 * `clients` concurrent clients on `ep` until stopped: half (rounded up) list all pods in a loop,
 * `thinkMs` apart, the others watch all pods (started again when a watch ends).
 */
export function startLoad(ep: Endpoint, clients: number, thinkMs = 0): { stop(): Promise<LoadFigures> } {
  const f: LoadFigures = { seconds: 0, lists: 0, events: 0, failed: new Map() };
  const failed = (why: string) => f.failed.set(why, (f.failed.get(why) ?? 0) + 1);
  const t0 = performance.now();
  let running = true;
  const listers = Math.ceil(clients / 2);
  const loops = Array.from({ length: listers }, async () => {
    while (running) {
      try {
        const a = await listPods(ep);
        if (a.status === 200) {
          f.lists++;
          if (thinkMs > 0) await new Promise((r) => setTimeout(r, thinkMs));
        } else {
          failed(`list HTTP ${a.status}`);
          await new Promise((r) => setTimeout(r, 200));
        }
      } catch (err) {
        failed(`list: ${(err as Error).message.slice(0, 80)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  });
  const watches = new Set<Watch>();
  const watch = () => {
    if (!running) return;
    const w: Watch = openWatch(ep, "/api/v1/pods?watch=1&allowWatchBookmarks=true", () => void f.events++, (why) => {
      watches.delete(w);
      if (!running) return;
      failed(`watch ended: ${why.slice(0, 60)}`);
      setTimeout(watch, 200);
    });
    w.ready.catch((err: Error) => failed(`watch: ${err.message.slice(0, 80)}`));
    watches.add(w);
  };
  for (let i = listers; i < clients; i++) watch();
  return {
    stop: async () => {
      running = false;
      f.seconds = (performance.now() - t0) / 1000;
      for (const w of watches) w.close();
      await Promise.all(loops);
      return f;
    },
  };
}
