// What bench:mcs sees in one cluster: a watch (shared/informer.ts) on the EndpointSlices of one
// label selector in one namespace, and the history of their ready endpoint set, each new set with
// the time (performance.now()) the event that made it arrived. A wait asks for the first set since
// a given time, so a watch started before a change can be asked about it afterwards.
import type { KubeConfig } from "@kubernetes/client-node";
import { Informer } from "../../shared/informer.ts";
import type { KubeRest, ResourceInfo } from "../../shared/kube-rest.ts";
import { createLogger } from "../../shared/logger.ts";
import { fullKey, readyKey, type SliceLike } from "./mcs-endpoints.ts";

const endpointSlices: ResourceInfo = { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", plural: "endpointslices", namespaced: true };

interface Sighting {
  at: number;
  key: string;
}

export class SliceWatch {
  readonly cluster: string;
  private readonly informer: Informer<SliceLike>;
  private readonly history: Sighting[] = [];
  private readonly waiters = new Set<(s: Sighting) => void>();

  constructor(cluster: string, kc: KubeConfig, rest: KubeRest, namespace: string, labelSelector: string) {
    this.cluster = cluster;
    this.informer = new Informer<SliceLike>({ kc, rest, resource: endpointSlices, namespace, labelSelector, log: createLogger("mcs-bench", "warn") });
    const seen = () => {
      const s = { at: performance.now(), key: this.ready() };
      if (s.key === this.history.at(-1)?.key) return;
      this.history.push(s);
      for (const w of this.waiters) w(s);
    };
    this.informer.on({ add: seen, update: seen, delete: seen });
  }

  start(): Promise<void> {
    return this.informer.start();
  }

  stop(): void {
    this.informer.stop();
  }

  /** The ready endpoint set now (readyKey). */
  ready(): string {
    return readyKey(this.informer.list());
  }

  /** Every endpoint with its conditions now (fullKey). */
  full(): string {
    return fullKey(this.informer.list());
  }

  /**
   * The time of the first ready set since `since` that `want` accepts, with the set; undefined
   * when none comes within timeoutMs.
   */
  firstSince(since: number, want: (key: string) => boolean, timeoutMs: number): Promise<Sighting | undefined> {
    const past = this.history.find((s) => s.at >= since && want(s.key));
    if (past !== undefined) return Promise.resolve(past);
    return new Promise((resolve) => {
      const waiter = (s: Sighting) => {
        if (s.at < since || !want(s.key)) return;
        this.waiters.delete(waiter);
        clearTimeout(timer);
        resolve(s);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        resolve(undefined);
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }
}
