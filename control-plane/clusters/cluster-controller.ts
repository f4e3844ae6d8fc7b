import type { Logger } from "pino";
import { RESOURCES } from "../../shared/api/resources.ts";
import type { Cluster, ClusterStatus, Condition } from "../../shared/api/types.ts";
import { shouldWriteClusterStatus } from "./cluster-status-write.ts";
import { ACCEPTED_CONDITION, acceptanceCondition } from "./acceptance-condition.ts";
import { Controller, type ReconcileResult } from "../../shared/controller.ts";
import type { Heartbeat } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { readiness, recordHeartbeat, startupGraceLeft, type HeartbeatState, type Thresholds } from "./cluster-readiness.ts";

const FIELD_MANAGER = "flotilla-cluster-controller";

/**
 * Cluster health: heartbeats (in memory) → Cluster status and its Ready condition. Writes only
 * when something besides lastHeartbeatTime changed, or lastHeartbeatTime is older than
 * `statusUpdateMs` (a heartbeat alone is not worth an etcd write every few seconds).
 */
export class ClusterController {
  readonly controller: Controller;
  private readonly states = new Map<string, HeartbeatState>();
  private readonly heartbeats = new Map<string, Heartbeat>();
  private readonly rest: KubeRest;
  private readonly get: (name: string) => Cluster | undefined;
  private readonly thresholds: Thresholds;
  private readonly statusUpdateMs: number;
  private readonly onReadyChanged: (cluster: string) => void;
  private readonly isLeader: () => boolean;
  private readonly connectedHere: (cluster: string) => boolean;
  private readonly startupGraceMs: number;
  private readonly requireAcceptance: boolean;
  /** When this replica began judging clusters it hears nothing from: when it started leading. */
  private judgingSince = Date.now();

  constructor(opts: {
    getCluster: (name: string) => Cluster | undefined;
    rest: KubeRest;
    log: Logger;
    thresholds: Thresholds;
    statusUpdateMs: number;
    /** The cluster's readiness changed, or another replica took over its heartbeats. */
    onReadyChanged: (cluster: string) => void;
    /** Clusters with no heartbeat here are judged by the leader alone, from lastHeartbeatTime. */
    isLeader: () => boolean;
    connectedHere: (cluster: string) => boolean;
    /** After a start or a leader change, old heartbeats are not judged for this long (agents reconnect). */
    startupGraceMs: number;
    /** --require-acceptance: every Cluster shows an Accepted condition. */
    requireAcceptance?: boolean;
  }) {
    this.requireAcceptance = opts.requireAcceptance ?? false;
    this.startupGraceMs = opts.startupGraceMs;
    this.get = opts.getCluster;
    this.rest = opts.rest;
    this.thresholds = opts.thresholds;
    this.statusUpdateMs = opts.statusUpdateMs;
    this.onReadyChanged = opts.onReadyChanged;
    this.isLeader = opts.isLeader;
    this.connectedHere = opts.connectedHere;
    this.controller = new Controller({ name: "cluster", reconcile: (k) => this.reconcile(k), log: opts.log, workers: 2 });
  }

  /** Whether this replica hears (or last heard) the cluster's heartbeats and no other replica took over. */
  heardHere(cluster: string): boolean {
    return this.states.has(cluster);
  }

  /** This replica now judges the clusters no replica hears from: old heartbeats get a grace period. */
  startedLeading(): void {
    this.judgingSince = Date.now();
  }

  heartbeat(cluster: string, hb: Heartbeat): void {
    this.states.set(cluster, recordHeartbeat(this.states.get(cluster) ?? {}, Date.now(), this.thresholds));
    this.heartbeats.set(cluster, hb);
    this.controller.enqueue(cluster);
  }

  private async reconcile(name: string): Promise<ReconcileResult> {
    const cluster = this.get(name);
    if (cluster === undefined) {
      this.states.delete(name);
      this.heartbeats.delete(name);
      return undefined;
    }
    const now = Date.now();
    const persistedBeat = cluster.status?.lastHeartbeatTime ? Date.parse(cluster.status.lastHeartbeatTime) : Number.NaN;
    let state = this.states.get(name);
    if (state !== undefined && !this.connectedHere(name) && persistedBeat > (state.lastHeartbeatAt ?? 0)) {
      // The agent now streams to another replica, which writes its heartbeats.
      this.states.delete(name);
      this.heartbeats.delete(name);
      state = undefined;
      this.onReadyChanged(name);
    }
    if (state === undefined) {
      if (!this.isLeader()) return undefined;
      // No heartbeat reaches this replica: judge by what the replica that has the stream wrote.
      state = Number.isNaN(persistedBeat) ? {} : { lastHeartbeatAt: persistedBeat, healthySince: persistedBeat - this.thresholds.successMs };
      // Just started (or just took over): agents are still reconnecting, so a Ready cluster stays
      // Ready until they had time to (DESIGN §11); its condition is left as it is.
      const wasReady = cluster.status?.conditions?.find((x) => x.type === "Ready")?.status === "True";
      const graceLeft = startupGraceLeft({ ready: wasReady, ...(state.lastHeartbeatAt === undefined ? {} : { lastHeartbeatAt: state.lastHeartbeatAt }), judgingSince: this.judgingSince, now, graceMs: this.startupGraceMs });
      if (graceLeft !== undefined) return { requeueAfterMs: graceLeft };
    }
    const r = readiness(state, now, this.thresholds);
    const before = cluster.status ?? {};
    const previousReady = before.conditions?.find((x) => x.type === "Ready");
    const ready: Condition = {
      type: "Ready",
      status: r.status,
      reason: r.reason,
      message: r.message,
      lastTransitionTime: previousReady?.status === r.status ? previousReady.lastTransitionTime : new Date(now).toISOString(),
    };
    const hb = this.heartbeats.get(name);
    const accepted = acceptanceCondition(cluster, this.requireAcceptance, now);
    const others = (before.conditions ?? []).filter((x) => x.type !== "Ready" && x.type !== ACCEPTED_CONDITION);
    const desired: ClusterStatus = { ...before, conditions: [ready, ...others, ...(accepted ? [accepted] : [])] };
    if (hb !== undefined) {
      desired.kubernetesVersion = hb.kubernetesVersion;
      desired.agentVersion = hb.agentVersion;
      desired.apiEnablements = hb.apiEnablements.map((groupVersion) => ({ groupVersion }));
      desired.nodeSummary = { totalNum: hb.nodeSummary?.total ?? 0, readyNum: hb.nodeSummary?.ready ?? 0 };
      desired.resourceSummary = { allocatable: hb.resourceSummary?.allocatable ?? {}, allocated: hb.resourceSummary?.allocated ?? {} };
    }
    if (hb !== undefined && state.lastHeartbeatAt !== undefined && this.states.has(name)) {
      desired.lastHeartbeatTime = new Date(state.lastHeartbeatAt).toISOString();
    }
    if (shouldWriteClusterStatus(before, desired, now, this.statusUpdateMs)) {
      await this.rest
        .apply(objectPath(RESOURCES.cluster, undefined, name, "status"), { apiVersion: cluster.apiVersion, kind: "Cluster", metadata: { name }, status: desired }, FIELD_MANAGER)
        .catch((err: unknown) => {
          if (!isKubeStatus(err, 404)) throw err;
        });
    }
    if (previousReady?.status !== r.status) this.onReadyChanged(name);
    const nextBeatWrite = hb !== undefined ? this.statusUpdateMs : undefined;
    const recheck = [r.recheckAfterMs, nextBeatWrite].filter((x): x is number => x !== undefined);
    return recheck.length > 0 ? { requeueAfterMs: Math.max(100, Math.min(...recheck)) } : undefined;
  }
}
