// A watch of one collection over node:https (issue 42): client-node's Watch, request for request
// and callback for callback, without its HTTP client. client-node's Watch sends the request with
// undici's fetch, and loading undici (730 KB of JavaScript, and the Node.js modules it pulls in)
// is most of what client-node costs a process that only reads and watches: the agent passes this
// to its informers (shared/informer.ts), and its bundle never loads undici unless something else
// asks for it (scripts/lean-agent.ts). The request is made as KubeRest makes every other: with the
// credentials and agent that KubeConfig.applyToHTTPSOptions gives, asked anew for each watch, as
// client-node asks for each (a rotated token or an exec plugin's is used).
import { request as httpRequest, STATUS_CODES } from "node:http";
import { request as httpsRequest, type RequestOptions } from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";

/** What client-node's ListWatch calls: a watch from the query's resourceVersion, ended by the returned controller. */
export interface WatchLike {
  watch(path: string, query: Record<string, string | number | boolean | undefined>, callback: (phase: string, obj: unknown, raw: unknown) => void, done: (err: unknown) => void): Promise<AbortController>;
}

/** client-node's Watch over node:https. */
export class KubeWatch implements WatchLike {
  /** No byte for this long ends the watch with a TimeoutError, after which a ListWatch watches again at once (client-node's default). */
  requestTimeoutMs = 30_000;
  private readonly kc: KubeConfig;

  constructor(kc: KubeConfig) {
    this.kc = kc;
  }

  /**
   * Starts watching `path`; each line of the answer is parsed and given to `callback` (a line
   * that is not JSON is skipped); `done` is called once: with null when the server ends the
   * answer, else with the error (a status other than 200 as an Error with `statusCode`, the
   * controller's abort as an AbortError, inactivity as a TimeoutError).
   */
  async watch(path: string, query: Record<string, string | number | boolean | undefined>, callback: (phase: string, obj: unknown, raw: unknown) => void, done: (err: unknown) => void): Promise<AbortController> {
    const cluster = this.kc.getCurrentCluster();
    if (!cluster) throw new Error("No currently active cluster");
    const url = new URL(cluster.server + path);
    url.searchParams.set("watch", "true");
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    const controller = new AbortController();
    const opts: RequestOptions = {};
    await this.kc.applyToHTTPSOptions(opts);
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    let doneCalled = false;
    const timeoutError = () => new DOMException("The operation was aborted due to timeout", "TimeoutError");
    const clearTimer = () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    };
    const resetTimer = () => {
      clearTimer();
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort(timeoutError());
      }, this.requestTimeoutMs);
      timer.unref();
    };
    const doneOnce = (err: unknown) => {
      if (doneCalled) return;
      doneCalled = true;
      clearTimer();
      controller.abort();
      done(err && timedOut ? timeoutError() : err);
    };
    resetTimer();
    const send = url.protocol === "http:" ? httpRequest : httpsRequest;
    const req = send(url, { ...opts, method: "GET", signal: controller.signal }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        const status = res.statusCode ?? 500;
        doneOnce(Object.assign(new Error(res.statusMessage || STATUS_CODES[status] || "Internal Server Error"), { statusCode: status }));
        return;
      }
      // The connect timeout is over; from here on it is an inactivity timeout.
      resetTimer();
      res.setEncoding("utf8");
      let rest = "";
      const line = (text: string) => {
        if (text === "") return;
        let data: { type: string; object: unknown };
        try {
          data = JSON.parse(text) as { type: string; object: unknown };
        } catch {
          return;
        }
        callback(data.type, data.object, data);
      };
      res.on("data", (chunk: string) => {
        resetTimer();
        const lines = (rest + chunk).split(/\r?\n/);
        rest = lines.pop() ?? "";
        for (const l of lines) line(l);
      });
      res.on("end", () => {
        line(rest);
        doneOnce(null);
      });
      res.on("error", doneOnce);
      res.on("close", () => doneOnce(res.complete ? null : new Error("the watch's connection closed before its answer ended")));
    });
    req.on("error", doneOnce);
    req.end();
    return controller;
  }
}
