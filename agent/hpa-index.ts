// Which member workloads an HPA scales (DESIGN §11, member-side owners): an informer on the
// member's HorizontalPodAutoscalers, indexed by their scale target.
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { KubeObject } from "../shared/api/types.ts";
import { Informer } from "../shared/informer.ts";
import type { KubeRest } from "../shared/kube-rest.ts";
import { scaleTargetId } from "./retain.ts";

interface Hpa extends KubeObject {
  spec?: { scaleTargetRef?: { apiVersion?: string; kind?: string; name?: string } };
}

export class HpaIndex {
  private readonly informer: Informer<Hpa>;
  private readonly log: Logger;
  private started: Promise<void> | undefined;

  constructor(opts: { kc: KubeConfig; rest: KubeRest; log: Logger }) {
    this.log = opts.log;
    this.informer = new Informer<Hpa>({
      kc: opts.kc,
      rest: opts.rest,
      resource: { apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", plural: "horizontalpodautoscalers", namespaced: true },
      // Only the scale target is read.
      transform: (h) => ({ apiVersion: h.apiVersion, kind: h.kind, metadata: { name: h.metadata.name, namespace: h.metadata.namespace, resourceVersion: h.metadata.resourceVersion }, spec: { scaleTargetRef: h.spec?.scaleTargetRef } }),
      log: opts.log,
    });
  }

  /** Starts watching (once); an agent that may not read HPAs treats every workload as unscaled. */
  ensure(): void {
    this.started ??= this.informer.start().catch((err: unknown) => this.log.warn({ err: String(err) }, "cannot watch HorizontalPodAutoscalers; replicas are applied as rendered"));
  }

  /** Whether an HPA in the namespace scales this workload (false until the HPAs are listed). */
  scales(namespace: string, apiVersion: string, kind: string, name: string): boolean {
    if (!this.informer.synced) return false;
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
