// Unjoin (leader only): every Cluster carries a cleanup finalizer (registration sets it, this
// controller adds it to a Cluster made by hand). Once a Cluster is deleted the
// scheduler stops placing anything there, the hub tells its agent to remove every Work, and this
// controller releases the finalizer when no binding still waits on the cluster, or at once when
// the unjoin was forced. Then the Cluster is gone and the hub ends its stream.
import type { Logger } from "pino";
import { RESOURCES } from "../../shared/api/resources.ts";
import { type Cluster, LABELS } from "../../shared/api/types.ts";
import { Controller, type ReconcileResult } from "../../shared/controller.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { unjoinOf } from "../../shared/cluster-unjoin.ts";
import { CLUSTER_FINALIZER } from "./registration.ts";

/** On a Cluster: release it without waiting for its agent (`flotillactl unjoin --force`). */
export const FORCE_ANNOTATION = LABELS.unjoinForce;
const RECHECK_MS = 1000;

/** What to do with a Cluster's cleanup finalizer. */
export function unjoinDecision(c: Cluster, waitingBindings: number): "add" | "release" | "wait" | "nothing" {
  const has = (c.metadata.finalizers ?? []).includes(CLUSTER_FINALIZER);
  if (c.metadata.deletionTimestamp === undefined) return has ? "nothing" : "add";
  if (!has) return "nothing";
  if (unjoinOf(c) === "forced" || waitingBindings === 0) return "release";
  return "wait";
}

export class UnjoinController {
  readonly controller: Controller;
  private readonly clusterNamed: (name: string) => Cluster | undefined;
  private readonly reportingCount: (cluster: string) => number;
  private readonly rest: KubeRest;
  private readonly log: Logger;

  /** reportingCount: how many bindings' status lists the cluster (an index lookup: a waiting unjoin asks every second). */
  constructor(opts: { clusterNamed: (name: string) => Cluster | undefined; reportingCount: (cluster: string) => number; rest: KubeRest; log: Logger }) {
    this.clusterNamed = opts.clusterNamed;
    this.reportingCount = opts.reportingCount;
    this.rest = opts.rest;
    this.log = opts.log;
    this.controller = new Controller({ name: "unjoin", reconcile: (k) => this.reconcile(k), log: opts.log, workers: 1 });
  }

  /** Bindings whose status still lists the cluster (its agent has not confirmed removal). */
  waitingOn(cluster: string): number {
    return this.reportingCount(cluster);
  }

  private async reconcile(name: string): Promise<ReconcileResult> {
    const c = this.clusterNamed(name);
    if (c === undefined) return undefined;
    const decision = unjoinDecision(c, this.waitingOn(name));
    if (decision === "nothing") return undefined;
    if (decision === "wait") return { requeueAfterMs: RECHECK_MS };
    const path = objectPath(RESOURCES.cluster, undefined, name);
    if (decision === "add") {
      await this.rest.mergePatch(path, { metadata: { finalizers: [...(c.metadata.finalizers ?? []), CLUSTER_FINALIZER], resourceVersion: c.metadata.resourceVersion } }).catch((err: unknown) => {
        if (!isKubeStatus(err, 404) && !isKubeStatus(err, 409)) throw err;
      });
      return undefined;
    }
    await this.rest
      .mergePatch(path, { metadata: { finalizers: (c.metadata.finalizers ?? []).filter((f) => f !== CLUSTER_FINALIZER), resourceVersion: c.metadata.resourceVersion } })
      .catch((err: unknown) => {
        if (!isKubeStatus(err, 404)) throw err;
      });
    this.log.info({ cluster: name, forced: unjoinOf(c) === "forced" }, "cluster unjoined");
    return undefined;
  }
}
