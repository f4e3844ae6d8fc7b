// Issue 42: one Follow stream a leader holds to this replica (status-feed.ts serves them). It sends
// the clusters this replica hears, the latest report per (cluster, Work) it holds for them, then
// each change; and it hears which of those clusters the leader takes. Its backlog holds keys, not
// messages (CoalescingOutbox: one entry per (cluster, Work), the latest report read when there is
// room), so a slow leader costs this replica no more memory than the reports it holds anyway;
// reports go out in batches of bounded size.
import type { ServerDuplexStream } from "@grpc/grpc-js";
import { CoalescingOutbox } from "../../shared/coalescing-outbox.ts";
import type { WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import type { FollowRequest, FollowUpdate, PeerReport } from "../../shared/gen/flotilla/v1alpha1/peer.ts";
import { overBudget, reportBytes } from "../status/status-store.ts";
import { listedClusters } from "./status-plan.ts";

/** A message closes once it holds this many reports, or this many bytes of them. */
export const MAX_BATCH_REPORTS = 500;
export const MAX_BATCH_BYTES = 1024 * 1024;
/** A report larger than this is forwarded without its objects' statuses but the template's own (status-store.ts's overBudget). */
export const MAX_FORWARDED_REPORT_BYTES = 2 * 1024 * 1024;

const CLUSTERS = "\0clusters";
const DONE = "\0done";

/** What a stream reads of this replica. */
export interface FeedReader {
  identity: string;
  /** The replica's report on a Work from a cluster, if it holds one. */
  report(cluster: string, key: string): WorkStatus | undefined;
  /** The Works a cluster reported on here. */
  keysOf(cluster: string): string[];
  /** The leader on stream `id` says it takes these clusters. */
  said(id: number, clusters: ReadonlySet<string>): void;
}

export interface FeedStats {
  reportsSent: number;
  trimmed: number;
}

export class FeedStream {
  readonly id: number;
  /** The replica the leader is (its certificate's name). */
  readonly caller: string;
  private readonly call: ServerDuplexStream<FollowRequest, FollowUpdate>;
  private readonly reader: FeedReader;
  private readonly stats: FeedStats;
  private readonly outbox: CoalescingOutbox;
  private heard = new Set<string>();
  private batch: PeerReport[] = [];
  private batchBytes = 0;
  private withClusters = false;
  private withDone = false;
  private introduced = false;
  private blocked = false;
  private flushing = false;
  private lastWriteAt = 0;
  closed = false;

  constructor(opts: { id: number; caller: string; call: ServerDuplexStream<FollowRequest, FollowUpdate>; reader: FeedReader; stats: FeedStats }) {
    this.id = opts.id;
    this.caller = opts.caller;
    this.call = opts.call;
    this.reader = opts.reader;
    this.stats = opts.stats;
    this.outbox = new CoalescingOutbox((key) => this.send(key));
    this.call.on("drain", () => {
      this.blocked = false;
      this.outbox.drained();
    });
    this.call.on("data", (req: FollowRequest) => {
      // A cluster this replica does not hear is not its to hand over.
      const taken = listedClusters(req.taken) ?? new Set<string>();
      this.reader.said(this.id, new Set([...taken].filter((c) => this.heard.has(c))));
    });
  }

  /** Keys waiting for room on the stream (at most one per (cluster, Work)). */
  get pending(): number {
    return this.outbox.size;
  }

  /** The snapshot: the clusters heard now, every report held for them, then its end. */
  open(heard: ReadonlySet<string>): void {
    this.heard = new Set(heard);
    this.outbox.mark(CLUSTERS);
    for (const c of this.heard) for (const key of this.reader.keysOf(c)) this.outbox.mark(reportKey(c, key));
    this.outbox.mark(DONE);
  }

  /** This replica's report on a Work from a cluster changed (or is gone). */
  changed(cluster: string, key: string): void {
    if (this.heard.has(cluster)) this.outbox.mark(reportKey(cluster, key));
  }

  /** The clusters this replica hears now: a change is said, and a cluster heard anew sends its reports. */
  hears(heard: ReadonlySet<string>): void {
    if (heard.size === this.heard.size && [...heard].every((c) => this.heard.has(c))) return;
    const before = this.heard;
    this.heard = new Set(heard);
    this.outbox.mark(CLUSTERS);
    for (const c of heard) if (!before.has(c)) for (const key of this.reader.keysOf(c)) this.outbox.mark(reportKey(c, key));
  }

  /** An empty message when nothing went out for a while: the leader knows this replica is there. */
  heartbeat(now: number, everyMs: number): void {
    if (this.closed || this.blocked || now - this.lastWriteAt < everyMs || this.outbox.size > 0) return;
    this.write();
  }

  close(): void {
    this.closed = true;
    this.outbox.close();
  }

  /** Ends the stream with a status (this replica leads now, or stops). */
  end(code: number, details: string): void {
    if (this.closed) return;
    this.close();
    this.call.emit("error", { code, details });
  }

  private send(key: string): boolean {
    if (key === CLUSTERS) this.withClusters = true;
    else if (key === DONE) this.withDone = true;
    else {
      const i = key.indexOf("\0");
      const cluster = key.slice(0, i);
      const workKey = key.slice(i + 1);
      if (!this.heard.has(cluster)) return !this.blocked;
      let status = this.reader.report(cluster, workKey);
      let bytes = status === undefined ? 0 : reportBytes(status);
      if (status !== undefined && bytes > MAX_FORWARDED_REPORT_BYTES) {
        status = overBudget(status, MAX_FORWARDED_REPORT_BYTES, `its report holds more than ${MAX_FORWARDED_REPORT_BYTES} bytes, more than a replica forwards to the leader`);
        bytes = reportBytes(status);
        this.stats.trimmed++;
      }
      this.batch.push({ cluster, workKey, status });
      this.batchBytes += bytes + cluster.length + workKey.length;
      this.stats.reportsSent++;
    }
    if (this.withDone || this.batch.length >= MAX_BATCH_REPORTS || this.batchBytes >= MAX_BATCH_BYTES) return this.write();
    // A partial batch goes once the outbox has handed over what it had at once.
    if (!this.flushing) {
      this.flushing = true;
      setImmediate(() => {
        this.flushing = false;
        if (!this.closed && (this.batch.length > 0 || this.withClusters)) this.write();
      });
    }
    return !this.blocked;
  }

  private write(): boolean {
    const update: FollowUpdate = {
      identity: this.introduced ? "" : this.reader.identity,
      clusters: this.withClusters ? { names: [...this.heard] } : undefined,
      reports: this.batch,
      snapshotDone: this.withDone,
    };
    this.introduced = true;
    this.batch = [];
    this.batchBytes = 0;
    this.withClusters = false;
    this.withDone = false;
    this.lastWriteAt = Date.now();
    if (this.closed) return false;
    this.blocked = !this.call.write(update);
    return !this.blocked;
  }
}

function reportKey(cluster: string, key: string): string {
  return `${cluster}\0${key}`;
}
