import type { Logger } from "pino";
import { RESOURCES } from "../../shared/api/resources.ts";
import type { Cluster, ClusterStatus, Condition } from "../../shared/api/types.ts";
import { Controller, type ReconcileResult } from "../../shared/controller.ts";
import type { Heartbeat } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { counter } from "../../shared/metrics.ts";
import { ACCEPTED_CONDITION, acceptanceCondition } from "./acceptance-condition.ts";
import { anotherReplicaHears, judgeLease, leaseWrite } from "./cluster-lease.ts";
import type { ClusterLease, ClusterLeases } from "./cluster-leases.ts";
import { type HeartbeatState, longerGrace, type Readiness, readiness, recordHeartbeat, startupGraceLeft, stormGraceLeft, successThresholdFor, type Thresholds } from "./cluster-readiness.ts";
import { clusterStatusWrite } from "./cluster-status-write.ts";

const FIELD_MANAGER = "flotilla-cluster-controller";

const statusWrites = counter("flotilla_cluster_status_writes_total", "Cluster status writes by this replica: changed (Ready, versions, nodes, API groups, conditions) or report (heartbeat time and capacity, every report interval).", ["reason"]);

/**
 * Cluster health: heartbeats, kept in memory by the replica that holds the agent's stream, which
 * judges Ready from them and writes the cluster's Lease every renew interval (liveness for the
 * other replicas: the leader judges the clusters no replica hears from by their leases). The
 * Cluster's status is written when something besides the heartbeat time and capacity changed,
 * and those two every report interval (an etcd write per heartbeat is not worth it).
 */
export class ClusterController {
  readonly controller: Controller;
  private readonly states = new Map<string, HeartbeatState>();
  private readonly heartbeats = new Map<string, Heartbeat>();
  /** The claims the hub left out of each cluster's last heartbeat as not sane (DESIGN §7). */
  private readonly missingFeatures: ((cluster: string) => string[] | undefined) | undefined;
  private readonly claimProblems = new Map<string, string[]>();
  private readonly rest: KubeRest;
  private readonly get: (name: string) => Cluster | undefined;
  private readonly leases: Pick<ClusterLeases, "get" | "write">;
  private readonly identity: string;
  private readonly leaseRenewMs: number;
  private readonly leaseDurationSeconds: number;
  private readonly thresholds: Thresholds;
  private readonly statusReportMs: number;
  private readonly onReadyChanged: (cluster: string) => void;
  private readonly isLeader: () => boolean;
  private readonly connectedHere: (cluster: string) => boolean;
  private readonly startupGraceMs: number;
  private readonly admissionBacklogMs: () => number;
  private readonly requireAcceptance: boolean;
  /** When this replica began judging clusters it hears nothing from: when it started leading. */
  private judgingSince = Date.now();

  constructor(opts: {
    getCluster: (name: string) => Cluster | undefined;
    rest: KubeRest;
    log: Logger;
    /** The clusters' leases, and this replica's identity as their holder. */
    leases: Pick<ClusterLeases, "get" | "write">;
    identity: string;
    /** How often the holder writes a lease while heartbeats arrive, and how long one lasts. */
    leaseRenewMs: number;
    leaseDurationSeconds: number;
    thresholds: Thresholds;
    /** How often the heartbeat time and capacity alone are written to the Cluster's status. */
    statusReportMs: number;
    /** The cluster's readiness changed, or another replica took over its heartbeats. */
    onReadyChanged: (cluster: string) => void;
    /** Clusters with no heartbeat here are judged by the leader alone, from their leases. */
    isLeader: () => boolean;
    connectedHere: (cluster: string) => boolean;
    /** After a start or a leader change, old heartbeats are not judged for this long (agents reconnect). */
    startupGraceMs: number;
    /** Issue 25: how long until every agent the hub's admission gate sent away is due back (default 0). */
    admissionBacklogMs?: () => number;
    /** --require-acceptance: every Cluster shows an Accepted condition. */
    requireAcceptance?: boolean;
    /** The removal features the cluster's agent lacks, when it streams to this replica (AgentOutdated). */
    missingFeatures?: (cluster: string) => string[] | undefined;
  }) {
    this.requireAcceptance = opts.requireAcceptance ?? false;
    this.missingFeatures = opts.missingFeatures;
    this.startupGraceMs = opts.startupGraceMs;
    this.admissionBacklogMs = opts.admissionBacklogMs ?? (() => 0);
    this.get = opts.getCluster;
    this.rest = opts.rest;
    this.leases = opts.leases;
    this.identity = opts.identity;
    this.leaseRenewMs = opts.leaseRenewMs;
    this.leaseDurationSeconds = opts.leaseDurationSeconds;
    this.thresholds = opts.thresholds;
    this.statusReportMs = opts.statusReportMs;
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
    const lease = this.leases.get(name);
    let state = this.states.get(name);
    if (state !== undefined && !this.connectedHere(name) && anotherReplicaHears({ lease: lease?.spec, me: this.identity, lastHeartbeatAt: state.lastHeartbeatAt, persistedBeat })) {
      // The agent now streams to another replica, which judges it from now on.
      this.states.delete(name);
      this.heartbeats.delete(name);
      state = undefined;
      this.onReadyChanged(name);
    }
    if (state === undefined) return this.judgeUnheard(cluster, lease, persistedBeat, now);
    // A failed lease write is retried (thrown) after the status is written: neither waits on the other.
    const leaseFailure = await this.renewLease(cluster, state, lease).then(
      () => undefined,
      (err: unknown) => err,
    );
    const storedReady = cluster.status?.conditions?.find((x) => x.type === "Ready")?.status;
    const thresholds = { ...this.thresholds, successMs: successThresholdFor(storedReady, this.thresholds.successMs) };
    const r = readiness(state, now, thresholds);
    // Silent in a reconnect storm this replica is metering out: its agent may be waiting its turn.
    const stormLeft = r.status === "False" && storedReady === "True" ? this.stormGrace(true) : undefined;
    const result = stormLeft !== undefined ? { requeueAfterMs: stormLeft } : await this.writeStatus(cluster, r, now);
    if (leaseFailure !== undefined) throw leaseFailure;
    return result;
  }

  /** The replica that holds the agent's stream writes the cluster's lease from its heartbeats. */
  private async renewLease(cluster: Cluster, state: HeartbeatState, lease: ClusterLease | undefined): Promise<void> {
    if (state.lastHeartbeatAt === undefined || !this.connectedHere(cluster.metadata.name ?? "")) return;
    const d = leaseWrite({ lease: lease?.spec, me: this.identity, lastHeartbeatAt: state.lastHeartbeatAt, renewMs: this.leaseRenewMs, durationSeconds: this.leaseDurationSeconds });
    // A write refused as stale (another replica wrote since) is looked at again on the informer's event.
    if (d.write) await this.leases.write(cluster, d.spec, lease?.metadata.resourceVersion, d.reason);
  }

  /**
   * The leader judges the clusters no replica hears from here: while a lease is held, its holder
   * judges the cluster in memory; once it expired, nobody hears the agent. A Cluster without a
   * lease (none written yet, or a replica of an older version hears it) is judged by its
   * persisted lastHeartbeatTime, which is written only every report interval.
   */
  private async judgeUnheard(cluster: Cluster, lease: ClusterLease | undefined, persistedBeat: number, now: number): Promise<ReconcileResult> {
    if (!this.isLeader()) return undefined;
    const verdict = judgeLease(lease?.spec, now);
    if (verdict.kind === "held") return { requeueAfterMs: verdict.expiresInMs + 1 };
    const lastHeartbeatAt = verdict.kind === "expired" ? verdict.renewedAt : persistedBeat;
    // Just started (or just took over): agents are still reconnecting, so a Ready cluster stays
    // Ready until they had time to (DESIGN §11); its condition is left as it is.
    const readyNow = cluster.status?.conditions?.find((x) => x.type === "Ready")?.status;
    const startupLeft = startupGraceLeft({ ready: readyNow === "True", ...(Number.isNaN(lastHeartbeatAt) ? {} : { lastHeartbeatAt }), judgingSince: this.judgingSince, now, graceMs: this.startupGraceMs });
    const graceLeft = longerGrace(startupLeft, this.stormGrace(readyNow === "True"));
    if (graceLeft !== undefined) return { requeueAfterMs: graceLeft };
    if (verdict.kind === "expired") {
      // Already not Ready (the replica that heard it last said so first): left as it is, so two judges never trade messages.
      if (readyNow === "False") return undefined;
      const seconds = (ms: number) => Math.round(ms / 1000);
      return this.writeStatus(cluster, { status: "False", reason: "ClusterNotReachable", message: `no replica has heard the agent for ${seconds(verdict.silentMs)}s (its lease, last renewed by ${verdict.holder}, lasts ${seconds(verdict.durationMs)}s)` }, now);
    }
    const state: HeartbeatState = Number.isNaN(persistedBeat) ? {} : { lastHeartbeatAt: persistedBeat, healthySince: persistedBeat - this.thresholds.successMs };
    // The persisted heartbeat is written only every report interval: it is that much older at worst.
    return this.writeStatus(cluster, readiness(state, now, { ...this.thresholds, failureMs: this.thresholds.failureMs + this.statusReportMs }), now);
  }

  private stormGrace(ready: boolean): number | undefined {
    return stormGraceLeft({ ready, admissionBacklogMs: this.admissionBacklogMs(), failureMs: this.thresholds.failureMs });
  }

  /** Writes the Cluster's status when it changed, or its heartbeat fields once the report interval passed. */
  private async writeStatus(cluster: Cluster, r: Readiness, now: number): Promise<ReconcileResult> {
    const name = cluster.metadata.name ?? "";
    const before = cluster.status ?? {};
    const previousReady = before.conditions?.find((x) => x.type === "Ready");
    const ready: Condition = {
      type: "Ready",
      status: r.status,
      reason: r.reason,
      message: r.message,
      lastTransitionTime: previousReady?.status === r.status ? previousReady.lastTransitionTime : new Date(now).toISOString(),
    };
    // Only the replica that hears the agent has its heartbeat: the others keep what it wrote.
    const state = this.states.get(name);
    const hb = state === undefined ? undefined : this.heartbeats.get(name);
    const claims = hb === undefined ? undefined : claimsCondition(this.claimProblems.get(name) ?? [], before.conditions, now);
    const accepted = acceptanceCondition(cluster, this.requireAcceptance, now);
    const outdated = hb === undefined ? undefined : outdatedCondition(this.missingFeatures?.(name) ?? [], before.conditions, now);
    const others = (before.conditions ?? []).filter((x) => x.type !== "Ready" && x.type !== ACCEPTED_CONDITION && (hb === undefined || (x.type !== CLAIMS_CONDITION && x.type !== OUTDATED_CONDITION)));
    const desired: ClusterStatus = { ...before, conditions: [ready, ...others, ...(claims ? [claims] : []), ...(outdated ? [outdated] : []), ...(accepted ? [accepted] : [])] };
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
      if (state?.lastHeartbeatAt !== undefined) desired.lastHeartbeatTime = new Date(state.lastHeartbeatAt).toISOString();
    }
    const why = clusterStatusWrite(before, desired, now, this.statusReportMs);
    if (why !== undefined) {
      await this.rest
        .apply(objectPath(RESOURCES.cluster, undefined, name, "status"), { apiVersion: cluster.apiVersion, kind: "Cluster", metadata: { name }, status: desired }, FIELD_MANAGER)
        .then(
          () => statusWrites.inc({ reason: why }),
          (err: unknown) => {
            if (!isKubeStatus(err, 404)) throw err;
          },
        );
    }
    if (previousReady?.status !== r.status) this.onReadyChanged(name);
    const nextReport = hb !== undefined ? this.statusReportMs : undefined;
    const recheck = [r.recheckAfterMs, nextReport].filter((x): x is number => x !== undefined);
    return recheck.length > 0 ? { requeueAfterMs: Math.max(100, Math.min(...recheck)) } : undefined;
  }
}

const CLAIMS_CONDITION = "HeartbeatClaimsValid";
const OUTDATED_CONDITION = "AgentOutdated";

/** A True AgentOutdated condition naming the removal features the agent lacks, or undefined when it has them all. */
export function outdatedCondition(missing: string[], before: Condition[] | undefined, now: number): Condition | undefined {
  if (missing.length === 0) return undefined;
  const previous = before?.find((x) => x.type === OUTDATED_CONDITION);
  return {
    type: OUTDATED_CONDITION,
    status: "True",
    reason: "MissingFeatures",
    message: `the agent lacks ${missing.join(", ")}: removals it would get wrong are held (flotillactl deletions list); upgrade the agent`,
    lastTransitionTime: previous?.status === "True" ? previous.lastTransitionTime : new Date(now).toISOString(),
  };
}

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
