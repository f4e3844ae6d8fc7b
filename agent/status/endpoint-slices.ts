// The ready endpoints of the Services Flotilla applied, from an informer on the member's
// EndpointSlices; a change of a Service's count re-reports its Work (DNS lists a cluster's load
// balancer only while the Service has ready endpoints there, DESIGN §12).
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { LABELS } from "../../shared/api/types.ts";
import { Informer } from "../../shared/informer.ts";
import { KubeWatch } from "../../shared/kube-watch.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import { type EndpointSlice, SERVICE_NAME_LABEL, serviceReadyEndpoints, sliceSummary } from "./ready-endpoints.ts";
import type { ManifestOutcome } from "./work-status.ts";

/** What the work runner asks of the index. */
export interface ReadyEndpointsSource {
  /** Starts watching (once); resolves when the slices are listed, or listing them failed. */
  synced(): Promise<void>;
  /** A Service's ready endpoints; undefined while the slices are not listed (not known is not 0). */
  readyEndpoints(namespace: string, service: string): number | undefined;
}

export class EndpointSliceIndex implements ReadyEndpointsSource {
  private readonly informer: Informer<EndpointSlice>;
  /** namespace/service → slice name → the slice's summary (the objects the informer caches). */
  private readonly byService = new Map<string, Map<string, EndpointSlice>>();
  private readonly log: Logger;
  private started: Promise<void> | undefined;

  constructor(opts: { kc: KubeConfig; rest: KubeRest; log: Logger; onChange: (namespace: string, service: string) => void }) {
    this.log = opts.log;
    this.informer = new Informer<EndpointSlice>({
      kc: opts.kc,
      rest: opts.rest,
      watch: new KubeWatch(opts.kc),
      resource: { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", plural: "endpointslices", namespaced: true },
      // The EndpointSlice controller copies a Service's labels onto its slices: Flotilla's work
      // label keeps the cache to the slices of the Services Flotilla applied.
      labelSelector: `${LABELS.work},${SERVICE_NAME_LABEL}`,
      transform: sliceSummary,
      log: opts.log,
    });
    const changed = (s: EndpointSlice, put: (slices: Map<string, EndpointSlice>) => void) => {
      const namespace = s.metadata.namespace ?? "";
      const service = s.metadata.labels?.[SERVICE_NAME_LABEL];
      if (service === undefined) return;
      const key = `${namespace}/${service}`;
      const slices = this.byService.get(key) ?? new Map<string, EndpointSlice>();
      const before = serviceReadyEndpoints(slices.values());
      put(slices);
      if (slices.size === 0) this.byService.delete(key);
      else this.byService.set(key, slices);
      if (serviceReadyEndpoints(slices.values()) !== before) opts.onChange(namespace, service);
    };
    const upsert = (s: EndpointSlice) => changed(s, (slices) => slices.set(s.metadata.name ?? "", s));
    this.informer.on({ add: upsert, update: upsert, delete: (s) => changed(s, (slices) => slices.delete(s.metadata.name ?? "")) });
  }

  synced(): Promise<void> {
    this.started ??= this.informer.start().then(
      () => {
        if (!this.informer.synced) this.log.warn("cannot list EndpointSlices; Services are reported without ready endpoints until it can");
      },
      (err: unknown) => this.log.warn({ err: String(err) }, "cannot watch EndpointSlices; Services are reported without ready endpoints"),
    );
    return this.started;
  }

  readyEndpoints(namespace: string, service: string): number | undefined {
    if (!this.informer.synced) return undefined;
    return serviceReadyEndpoints(this.byService.get(`${namespace}/${service}`)?.values() ?? []);
  }

  stop(): void {
    this.informer.stop();
  }
}

/** Each applied Service's outcome with its ready endpoints (the first count waits for the slices' first list). */
export async function withReadyEndpoints(endpoints: ReadyEndpointsSource | undefined, outcomes: ManifestOutcome[]): Promise<ManifestOutcome[]> {
  const isService = (o: ManifestOutcome) => o.applied && o.live !== undefined && o.manifest.apiVersion === "v1" && o.manifest.kind === "Service";
  if (endpoints === undefined || !outcomes.some(isService)) return outcomes;
  await endpoints.synced();
  return outcomes.map((o) => {
    if (!isService(o) || o.live === undefined) return o;
    const ready = endpoints.readyEndpoints(o.live.metadata.namespace ?? "", o.live.metadata.name ?? "");
    return ready === undefined ? o : { ...o, readyEndpoints: ready };
  });
}
