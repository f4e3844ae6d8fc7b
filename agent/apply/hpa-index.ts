// Which member workloads an HPA scales (DESIGN §11, member-side owners): an informer on the
// member's HorizontalPodAutoscalers, indexed by their scale target.
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { KubeObject } from "../../shared/api/types.ts";
import { Informer } from "../../shared/informer.ts";
import { KubeWatch } from "../../shared/kube-watch.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import { scaleTargetId } from "./retain.ts";

interface Hpa extends KubeObject {
  spec?: { scaleTargetRef?: { apiVersion?: string; kind?: string; name?: string } };
}

export class HpaIndex {
  private readonly informer: Informer<Hpa>;
  private readonly log: Logger;
  private started: Promise<void> | undefined;
  private waitedOut = false;

  constructor(opts: { kc: KubeConfig; rest: KubeRest; log: Logger }) {
    this.log = opts.log;
    this.informer = new Informer<Hpa>({
      kc: opts.kc,
      rest: opts.rest,
      watch: new KubeWatch(opts.kc),
      resource: { apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", plural: "horizontalpodautoscalers", namespaced: true },
      // Only the scale target is read.
      transform: (h) => ({ apiVersion: h.apiVersion, kind: h.kind, metadata: { name: h.metadata.name, namespace: h.metadata.namespace, resourceVersion: h.metadata.resourceVersion }, spec: { scaleTargetRef: h.spec?.scaleTargetRef } }),
      log: opts.log,
    });
  }

  /**
   * Starts watching (once). Until the first list succeeds scales() is undefined and the agent keeps
   * a live workload's replicas (retain.ts), logging why: an agent that may not list HPAs never
   * changes a running workload's replicas.
   */
  ensure(): void {
    this.started ??= this.informer.start().catch((err: unknown) => this.log.warn({ err: String(err) }, "cannot list HorizontalPodAutoscalers yet; running workloads keep their replicas until they are listed"));
  }

  /**
   * Resolves once the HPAs are listed, or after ms, whichever comes first. Once a wait has run out
   * (an agent that may not list them), later calls return at once until the list succeeds.
   */
  async whenListed(ms: number): Promise<void> {
    this.ensure();
    if (this.informer.synced || this.waitedOut) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.informer.whenSynced(), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms).unref()))]);
    clearTimeout(timer);
    if (!this.informer.synced) this.waitedOut = true;
  }

  /**
   * Whether an HPA in the namespace scales this workload; undefined while the HPAs are not listed
   * (a cache not listed yet is no answer: the caller keeps the member's replicas, DESIGN §11).
   */
  scales(namespace: string, apiVersion: string, kind: string, name: string): boolean | undefined {
    if (!this.informer.synced) return undefined;
    const want = scaleTargetId(namespace, apiVersion, kind, name);
    return this.informer.list(namespace).some((h) => {
      const t = h.spec?.scaleTargetRef;
      return t?.kind !== undefined && t.name !== undefined && scaleTargetId(namespace, t.apiVersion ?? "", t.kind, t.name) === want;
    });
  }

  stop(): void {
    this.informer.stop();
  }
}
