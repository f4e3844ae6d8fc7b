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
  /** The claims the hub left out of each cluster's last heartbeat as not sane (DESIGN §7). */
  private readonly claimProblems = new Map<string, string[]>();
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

  heartbeat(cluster: string, hb: Heartbeat, problems: string[] = []): void {
    this.states.set(cluster, recordHeartbeat(this.states.get(cluster) ?? {}, Date.now(), this.thresholds));
    this.heartbeats.set(cluster, hb);
    this.claimProblems.set(cluster, problems);
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
    const claims = hb === undefined ? undefined : claimsCondition(this.claimProblems.get(name) ?? [], before.conditions, now);
    const accepted = acceptanceCondition(cluster, this.requireAcceptance, now);
    const others = (before.conditions ?? []).filter((x) => x.type !== "Ready" && x.type !== ACCEPTED_CONDITION && (hb === undefined || x.type !== CLAIMS_CONDITION));
    const desired: ClusterStatus = { ...before, conditions: [ready, ...others, ...(claims ? [claims] : []), ...(accepted ? [accepted] : [])] };
    if (hb !== undefined) {
      desired.kubernetesVersion = hb.kubernetesVersion;
      desired.agentVersion = hb.agentVersion;
      desired.apiEnablements = hb.apiEnablements.map((groupVersion) => ({ groupVersion }));
      desired.nodeSummary = { totalNum: hb.nodeSummary?.total ?? 0, readyNum: hb.nodeSummary?.ready ?? 0 };
      // An empty map is left out: server-side apply turns it into null, which the schema refuses (and the write would fail on every heartbeat).
      const nonEmpty = (m: Record<string, string> | undefined) => (m !== undefined && Object.keys(m).length > 0 ? m : undefined);
      const [allocatable, allocated] = [nonEmpty(hb.resourceSummary?.allocatable), nonEmpty(hb.resourceSummary?.allocated)];
      // Neither known: no summary at all (this manager's earlier one is released, not kept stale).
      desired.resourceSummary = allocatable || allocated ? { ...(allocatable && { allocatable }), ...(allocated && { allocated }) } : undefined;
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

const CLAIMS_CONDITION = "HeartbeatClaimsValid";

/** A False condition naming the heartbeat claims the hub left out, or undefined when all were sane. */
function claimsCondition(problems: string[], before: Condition[] | undefined, now: number): Condition | undefined {
  if (problems.length === 0) return undefined;
  const previous = before?.find((x) => x.type === CLAIMS_CONDITION);
  const shown = problems.slice(0, 10).join("; ");
  return {
    type: CLAIMS_CONDITION,
    status: "False",
    reason: "ClaimsLeftOut",
    message: `the hub left out of the agent's heartbeat what is not sane: ${shown}${problems.length > 10 ? ` (and ${problems.length - 10} more)` : ""}`,
    lastTransitionTime: previous?.status === "False" ? previous.lastTransitionTime : new Date(now).toISOString(),
  };
}
