// KubeWatch against client-node's Watch, case by case on the same local server: the same
// request, the same callbacks and the same end (shared/kube-watch.ts stands in for the one).
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { KubeConfig, Watch } from "@kubernetes/client-node";
import { KubeWatch, type WatchLike } from "./kube-watch.ts";

let server: Server;
let handler: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;
let kc: KubeConfig;

before(async () => {
  server = createServer((req, res) => handler(req, res));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  kc = kubeConfig(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
after(() => {
  server.closeAllConnections();
  server.close();
});

function kubeConfig(url: string): KubeConfig {
  const k = new KubeConfig();
  k.loadFromOptions({ clusters: [{ name: "c", server: url, skipTLSVerify: true }], users: [{ name: "u", token: "t0ken" }], contexts: [{ name: "x", cluster: "c", user: "u" }], currentContext: "x" });
  return k;
}

/** One watch: the events seen and how it ended (the error's name, status code and message, or null). */
async function run(w: WatchLike, opts: { query?: Record<string, string | undefined>; abortAfterMs?: number } = {}): Promise<{ events: [string, unknown][]; end: unknown }> {
  const events: [string, unknown][] = [];
  let controller: AbortController | undefined;
  const ended = new Promise<unknown>((resolve) => {
    void w.watch("/api/v1/pods", opts.query ?? { resourceVersion: "5" }, (phase, obj) => events.push([phase, obj]), resolve).then((c) => (controller = c));
  });
  if (opts.abortAfterMs !== undefined) setTimeout(() => controller?.abort(), opts.abortAfterMs);
  const err = await ended;
  const end = err === null ? null : { name: (err as Error).name, statusCode: (err as { statusCode?: number }).statusCode, message: (err as Error).message };
  return { events, end };
}

const implementations: [string, (k: KubeConfig) => WatchLike][] = [
  ["client-node's Watch", (k) => new Watch(k) as unknown as WatchLike],
  ["KubeWatch", (k) => new KubeWatch(k)],
];

describe("KubeWatch does what client-node's Watch does", () => {
  it("sends the same request: the path, watch=true, the query without undefined values, the token", async () => {
    const seen: string[] = [];
    handler = (req, res) => {
      seen.push(`${req.url} ${req.headers.authorization}`);
      res.end();
    };
    for (const [, make] of implementations) await run(make(kc), { query: { resourceVersion: "7", labelSelector: "a=b", fieldSelector: undefined } });
    assert.equal(seen.length, 2);
    assert.equal(seen[0], seen[1]);
    assert.equal(seen[1], "/api/v1/pods?watch=true&resourceVersion=7&labelSelector=a%3Db Bearer t0ken");
  });

  it("hands each line's event over, a line split across writes too, skips one that is not JSON, and ends with null when the server ends", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"MODI');
      setTimeout(() => {
        res.write('FIED","object":{"metadata":{"name":"a","resourceVersion":"9"}}}\nnot json\n\n');
        res.end('{"type":"DELETED","object":{"metadata":{"name":"a"}}}');
      }, 20);
    };
    const results = [];
    for (const [, make] of implementations) results.push(await run(make(kc)));
    assert.deepEqual(results[1], results[0]);
    assert.deepEqual(results[1], {
      end: null,
      events: [
        ["ADDED", { metadata: { name: "a" } }],
        ["MODIFIED", { metadata: { name: "a", resourceVersion: "9" } }],
        ["DELETED", { metadata: { name: "a" } }],
      ],
    });
  });

  it("ends with an Error carrying the status code when the answer is not 200", async () => {
    handler = (_req, res) => {
      res.writeHead(410);
      res.end('{"kind":"Status","code":410}');
    };
    const results = [];
    for (const [, make] of implementations) results.push(await run(make(kc)));
    assert.deepEqual(results[1], results[0]);
    assert.deepEqual(results[1], { events: [], end: { name: "Error", statusCode: 410, message: "Gone" } });
  });

  it("ends with an AbortError when its controller aborts it", async () => {
    handler = (_req, res) => {
      res.writeHead(200);
      res.write('{"type":"ADDED","object":{}}\n');
    };
    const results = [];
    for (const [, make] of implementations) results.push(await run(make(kc), { abortAfterMs: 100 }));
    assert.deepEqual(results.map((r) => [r.events.length, (r.end as { name: string }).name]), [
      [1, "AbortError"],
      [1, "AbortError"],
    ]);
  });

  it("ends with a TimeoutError after requestTimeoutMs without a byte, on which a ListWatch watches again at once", async () => {
    handler = (_req, res) => {
      res.writeHead(200);
      res.write('{"type":"ADDED","object":{}}\n');
    };
    const results = [];
    for (const [, make] of implementations) {
      const w = make(kc) as WatchLike & { requestTimeoutMs: number };
      w.requestTimeoutMs = 150;
      results.push(await run(w));
    }
    assert.deepEqual(results.map((r) => [r.events.length, (r.end as { name: string }).name]), [
      [1, "TimeoutError"],
      [1, "TimeoutError"],
    ]);
  });

  it("ends with an error when the server cannot be reached", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    for (const [name, make] of implementations) {
      const { events, end } = await run(make(kubeConfig(`http://127.0.0.1:${port}`)));
      assert.deepEqual(events, [], name);
      assert.notEqual(end, null, name);
    }
  });

  it("ends with an error when the connection drops before the answer ends", async () => {
    handler = (_req, res) => {
      res.writeHead(200);
      res.write('{"type":"ADDED","object":{}}\n');
      setTimeout(() => res.socket?.destroy(), 30);
    };
    const { events, end } = await run(new KubeWatch(kc));
    assert.equal(events.length, 1);
    assert.notEqual(end, null);
  });
});
