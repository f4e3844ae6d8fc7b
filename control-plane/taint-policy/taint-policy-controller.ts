// The ClusterTaintPolicy controller (issue 26; leader only): for each Cluster, the taints the
// policies want (cluster-taints.ts) written to its spec.taints, only when they changed, and guarded
// by the Cluster's resourceVersion (a conflict is retried on the fresh object). It runs on a
// Cluster's change (its conditions move as the cluster controller judges heartbeats) and, for
// every cluster, on a policy's. It never deletes anything; what a taint does is the scheduler's
// (NoExecute only under --enable-no-execute-taint-eviction, and then gracefully).
import type { Logger } from "pino";
import { RESOURCES } from "../../shared/api/resources.ts";
import type { ClusterTaintPolicy } from "../../shared/api/taint-policy.ts";
import type { Cluster } from "../../shared/api/types.ts";
import { Controller, type ReconcileResult } from "../../shared/controller.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import type { Caches } from "../caches/caches.ts";
import { type EventRecorder, involvedObjectOf } from "../status/event-recorder.ts";
import { clusterTaints, POLICY_TAINTS_ANNOTATION, taintId } from "./cluster-taints.ts";

export class TaintPolicyController {
  readonly controller: Controller;
  readonly counts = { updated: 0, refused: 0 };
  private readonly caches: Caches;
  private readonly rest: KubeRest;
  private readonly log: Logger;
  private readonly recorder: EventRecorder;
  private readonly allowNoExecute: boolean;
  private readonly now: () => number;

  constructor(opts: { caches: Caches; rest: KubeRest; log: Logger; recorder: EventRecorder; allowNoExecute: boolean; now?: () => number }) {
    this.caches = opts.caches;
    this.rest = opts.rest;
    this.log = opts.log.child({ component: "cluster-taint-policy" });
    this.recorder = opts.recorder;
    this.allowNoExecute = opts.allowNoExecute;
    this.now = opts.now ?? Date.now;
    this.controller = new Controller({ name: "cluster-taint-policy", reconcile: (k) => this.reconcile(k), log: this.log, workers: 2 });
    const clusterChanged = (c: Cluster) => this.controller.enqueue(c.metadata.name ?? "");
    this.caches.clusters.on({ add: clusterChanged, update: clusterChanged });
    // A policy's change (or its deletion, which removes nothing: Karmada's rule) concerns every cluster.
    const policyChanged = () => this.enqueueAll();
    this.caches.clusterTaintPolicies.on({ add: policyChanged, update: policyChanged });
  }

  enqueueAll(): void {
    for (const c of this.caches.clusters.list()) this.controller.enqueue(c.metadata.name ?? "");
  }

  private async reconcile(name: string): Promise<ReconcileResult> {
    const c = this.caches.clusters.get(name);
    if (c === undefined || c.metadata.deletionTimestamp !== undefined) return undefined;
    const policies = this.caches.clusterTaintPolicies.list();
    const d = clusterTaints(c, policies, { now: new Date(this.now()).toISOString().replace(/\.\d+Z$/, "Z"), allowNoExecute: this.allowNoExecute });
    for (const p of d.refused) this.refuse(policies.find((x) => x.metadata.name === p));
    const before = (c.spec?.taints ?? []).map(taintId).join(" ");
    const ownedBefore = c.metadata.annotations?.[POLICY_TAINTS_ANNOTATION] ?? "";
    if (before === d.taints.map(taintId).join(" ") && ownedBefore === d.owned) return undefined;
    const patch = {
      metadata: { resourceVersion: c.metadata.resourceVersion, annotations: { [POLICY_TAINTS_ANNOTATION]: d.owned === "" ? null : d.owned } },
      spec: { taints: d.taints },
    };
    try {
      await this.rest.mergePatch(objectPath(RESOURCES.cluster, undefined, name), patch);
    } catch (err) {
      // Gone: nothing to taint. A conflict: the informer brings the fresh Cluster, which is enqueued again.
      if (isKubeStatus(err, 404)) return undefined;
      if (isKubeStatus(err, 409)) return { requeueAfterMs: 200 };
      void this.recorder.record(involvedObjectOf(c), { reason: "TaintClusterFailed", message: `updating the cluster's taints failed: ${(err as Error).message}` });
      throw err;
    }
    this.counts.updated++;
    const message = `taints now ${d.taints.length === 0 ? "none" : d.taints.map((t) => `${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`).join(", ")} (ClusterTaintPolicy)`;
    this.log.info({ cluster: name, taints: d.taints.map(taintId) }, "cluster taints updated");
    void this.recorder.record(involvedObjectOf(c), { reason: "TaintClusterSucceed", message, type: "Normal" });
    return undefined;
  }

  private refuse(p: ClusterTaintPolicy | undefined): void {
    if (p === undefined) return;
    this.counts.refused++;
    void this.recorder.record(involvedObjectOf(p), {
      reason: "NoExecuteNotAllowed",
      message: "this policy has a NoExecute taint and the control plane runs without --allow-no-execute-taint-policy: the policy is not applied",
    });
  }
}
