// Live updates for the dashboard (issue 24): browsers subscribe to a view (server-sent events);
// a change in the caches schedules one recomputation per distinct view 250 ms later (changes in
// between join it, so a stream of changes costs at most four recomputations a second),
// and each subscriber gets the view only when it differs from what it last got. So a hundred
// browsers on the overview cost one computation per change, never a request to the apiserver,
// and a browser that reads slowly (its socket buffer full) is skipped until it drains, then sent
// only the latest view (back-pressure without a queue).
import { createHash } from "node:crypto";

export interface Subscriber {
  /** Writes one message; false when the socket's buffer is full (wait for drain). */
  send(data: string): boolean;
}

interface Entry {
  view: string;
  sub: Subscriber;
  lastHash: string;
  blocked: boolean;
}

export class LiveViews {
  private readonly compute: (view: string) => unknown;
  private readonly quietMs: number;
  private readonly maxSubscribers: number;
  private readonly entries = new Set<Entry>();
  private timer: NodeJS.Timeout | undefined;
  /** Views computed since start (for tests and the benchmark of the cost per change). */
  computations = 0;

  constructor(opts: { compute: (view: string) => unknown; quietMs?: number; maxSubscribers?: number }) {
    this.compute = opts.compute;
    this.quietMs = opts.quietMs ?? 250;
    this.maxSubscribers = opts.maxSubscribers ?? 200;
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * Sends the view now and on every change; returns how to drain and end the subscription, or
   * undefined when the dashboard already serves its most subscribers.
   */
  subscribe(view: string, sub: Subscriber): { drained(): void; end(): void } | undefined {
    if (this.entries.size >= this.maxSubscribers) return undefined;
    const entry: Entry = { view, sub, lastHash: "", blocked: false };
    this.entries.add(entry);
    this.deliver(entry, this.render(view));
    return {
      drained: () => {
        entry.blocked = false;
        this.deliver(entry, this.render(view));
      },
      end: () => void this.entries.delete(entry),
    };
  }

  /** Something the views read changed: recompute once the current spell (quietMs) ends. */
  changed(): void {
    if (this.timer !== undefined || this.entries.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, this.quietMs);
    this.timer.unref();
  }

  /** Recomputes each subscribed view once and sends it where it changed. */
  flush(): void {
    const rendered = new Map<string, { data: string; hash: string }>();
    for (const e of this.entries) {
      if (e.blocked) continue;
      let r = rendered.get(e.view);
      if (r === undefined) {
        r = this.render(e.view);
        rendered.set(e.view, r);
      }
      this.deliver(e, r);
    }
  }

  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.entries.clear();
  }

  private render(view: string): { data: string; hash: string } {
    this.computations++;
    let data: string;
    try {
      data = JSON.stringify({ view: this.compute(view) });
    } catch (err) {
      data = JSON.stringify({ error: err instanceof Error ? err.message : String(err) });
    }
    return { data, hash: createHash("sha256").update(data).digest("base64") };
  }

  private deliver(e: Entry, r: { data: string; hash: string }): void {
    if (e.blocked || r.hash === e.lastHash) return;
    e.lastHash = r.hash;
    if (!e.sub.send(r.data)) e.blocked = true;
  }
}
