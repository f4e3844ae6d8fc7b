// The leader collects, every few seconds, the summaries the other replicas' agents sent them
// (issue 22; peer-plan.ts decides, pure). Each replica is asked on its own: at most one call in
// flight per replica, each page with a deadline and a bounded size, so a slow or misbehaving
// replica delays only its own clusters' summaries (which then age and count as missing: no
// scale-down on them), never the FederatedHPA's runs, which read the metrics store.
import { type ChannelCredentials, Metadata } from "@grpc/grpc-js";
import type { Logger } from "pino";
import { type CollectResponse, PeerMetricsClient } from "../../shared/gen/flotilla/v1alpha1/peer.ts";
import type { WorkloadMetricsReport } from "../../shared/workload-metrics-wire.ts";
import type { ClusterLease } from "../clusters/cluster-leases.ts";
import type { WantedIndex } from "../hub/metrics-admission.ts";
import { peerChannelOptions, type ReplicaCredentials } from "./peer-credentials.ts";
import { type Cursor, nextRequest, peersToAsk, takePage, type TakenPage } from "./peer-plan.ts";

export interface CollectorOptions {
  identity: string;
  /** This replica's client certificate for the other replicas. */
  credentials: ReplicaCredentials;
  leases: () => readonly ClusterLease[];
  holderOf: (cluster: string) => string | undefined;
  wantedOf: (cluster: string) => WantedIndex | undefined;
  take: (cluster: string, report: WorkloadMetricsReport, at: number) => void;
  log: Logger;
  intervalMs: number;
  /** Each call's deadline. */
  timeoutMs: number;
  maxAgeMs: number;
  pageLimit: number;
  /** Pages per replica per round (the rest waits for the next round). */
  maxPages: number;
  /** The largest answer taken, in bytes. */
  maxResponseBytes: number;
  now?: () => number;
}

export class PeerCollector {
  readonly stats = { calls: 0, failed: 0, taken: 0, notHolder: 0, notWanted: 0, outOfBounds: 0, tooOld: 0, peers: 0 };
  private readonly o: CollectorOptions;
  private readonly now: () => number;
  private readonly clients = new Map<string, { address: string; client: PeerMetricsClient; cursor?: Cursor; busy: boolean; lastError?: string }>();
  private creds: { value: ChannelCredentials; generation: number } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(o: CollectorOptions) {
    this.o = o;
    this.now = o.now ?? Date.now;
  }

  start(): void {
    if (this.timer !== undefined || this.stopped) return;
    const tick = () => {
      void this.round().catch((err: unknown) => this.o.log.warn({ err: err instanceof Error ? err.message : String(err) }, "collecting from the other replicas failed"));
      if (!this.stopped) this.timer = setTimeout(tick, this.o.intervalMs);
    };
    tick();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    for (const c of this.clients.values()) c.client.close();
    this.clients.clear();
  }

  /** One round: every replica that holds a live cluster Lease, each on its own. */
  async round(): Promise<void> {
    const peers = peersToAsk(this.o.leases(), this.o.identity, this.now());
    this.stats.peers = peers.size;
    const creds = await this.o.credentials.get();
    const renewed = creds.generation !== this.creds?.generation;
    this.creds = creds;
    for (const [peer, c] of this.clients) {
      if (peers.get(peer) !== c.address || renewed) {
        c.client.close();
        this.clients.delete(peer);
      }
    }
    const calls: Promise<void>[] = [];
    for (const [peer, address] of peers) {
      let c = this.clients.get(peer);
      if (c === undefined) {
        c = { address, client: this.newClient(address), busy: false };
        this.clients.set(peer, c);
      }
      if (c.busy) continue;
      calls.push(this.collectFrom(peer, c));
    }
    await Promise.all(calls);
  }

  private async collectFrom(peer: string, c: { client: PeerMetricsClient; cursor?: Cursor; busy: boolean; lastError?: string }): Promise<void> {
    c.busy = true;
    try {
      for (let page = 0; page < this.o.maxPages && !this.stopped; page++) {
        this.stats.calls++;
        const response = await this.call(c.client, nextRequest(c.cursor, this.o.pageLimit));
        const taken = takePage({ peer, response, holderOf: this.o.holderOf, wantedOf: this.o.wantedOf, now: this.now(), maxAgeMs: this.o.maxAgeMs });
        this.count(taken);
        for (const t of taken.taken) this.o.take(t.cluster, t.report, t.at);
        c.cursor = taken.cursor;
        if (!response.more) break;
      }
      if (c.lastError !== undefined) this.o.log.info({ peer }, "collecting from the replica works again");
      delete c.lastError;
    } catch (err) {
      this.stats.failed++;
      const message = err instanceof Error ? err.message : String(err);
      // Said once per change (a replica that is down would say it every few seconds); an older replica answers UNIMPLEMENTED.
      if (c.lastError !== message) this.o.log.warn({ peer, err: message }, "collecting summaries from a replica failed; its clusters count as missing until it answers");
      c.lastError = message;
    } finally {
      c.busy = false;
    }
  }

  private count(t: TakenPage): void {
    this.stats.taken += t.taken.length;
    this.stats.notHolder += t.dropped.notHolder;
    this.stats.notWanted += t.dropped.notWanted;
    this.stats.outOfBounds += t.dropped.outOfBounds;
    this.stats.tooOld += t.dropped.tooOld;
  }

  private call(client: PeerMetricsClient, req: { epoch: string; after: number; limit: number }): Promise<CollectResponse> {
    return new Promise((resolve, reject) => {
      client.collect(req, new Metadata(), { deadline: this.now() + this.o.timeoutMs }, (err, res) => (err ? reject(err) : resolve(res)));
    });
  }

  private newClient(address: string): PeerMetricsClient {
    const creds = this.creds?.value;
    if (creds === undefined) throw new Error("no client certificate yet");
    return new PeerMetricsClient(address, creds, peerChannelOptions(this.o.maxResponseBytes));
  }
}
