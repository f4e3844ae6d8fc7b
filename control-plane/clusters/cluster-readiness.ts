// Whether a cluster is Ready, from its heartbeats (DESIGN §6): pure.

export interface HeartbeatState {
  /** When the last heartbeat arrived (ms), if any. */
  lastHeartbeatAt?: number;
  /** Start of the current run of heartbeats with no gap longer than the failure threshold (ms). */
  healthySince?: number;
}

export interface Thresholds {
  /** No heartbeat for longer than this → not Ready. */
  failureMs: number;
  /** Heartbeats without such a gap for at least this long → Ready again. */
  successMs: number;
}

export interface Readiness {
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  /** When to look again: the moment the answer would change if nothing else happens. */
  recheckAfterMs?: number;
}

/**
 * The success threshold that applies to a cluster, from its stored Ready status (Karmada's
 * rule): only a cluster that was not Ready must keep its heartbeats up that long before it is
 * Ready again. A new cluster (no Ready condition yet, or Unknown) is Ready at its first
 * heartbeat, and a Ready one that moved to another replica stays Ready.
 */
export function successThresholdFor(storedReady: string | undefined, successMs: number): number {
  return storedReady === "False" ? successMs : 0;
}

/** The state after a heartbeat at `now`. */
export function recordHeartbeat(state: HeartbeatState, now: number, t: Thresholds): HeartbeatState {
  const gap = state.lastHeartbeatAt === undefined || now - state.lastHeartbeatAt > t.failureMs;
  return { lastHeartbeatAt: now, healthySince: gap || state.healthySince === undefined ? now : state.healthySince };
}

/** The Ready condition at `now`. */
export function readiness(state: HeartbeatState, now: number, t: Thresholds): Readiness {
  if (state.lastHeartbeatAt === undefined) {
    return { status: "Unknown", reason: "AwaitingAgent", message: "no heartbeat from the cluster's agent yet" };
  }
  const silentFor = now - state.lastHeartbeatAt;
  if (silentFor > t.failureMs) {
    return {
      status: "False",
      reason: "ClusterNotReachable",
      message: `no heartbeat for ${Math.round(silentFor / 1000)}s (failure threshold ${Math.round(t.failureMs / 1000)}s)`,
    };
  }
  const healthyFor = now - (state.healthySince ?? state.lastHeartbeatAt);
  if (healthyFor < t.successMs) {
    return {
      status: "False",
      reason: "ClusterRecovering",
      message: `heartbeats resumed ${Math.round(healthyFor / 1000)}s ago (success threshold ${Math.round(t.successMs / 1000)}s)`,
      recheckAfterMs: t.successMs - healthyFor,
    };
  }
  return { status: "True", reason: "ClusterReady", message: "the agent's heartbeats arrive", recheckAfterMs: t.failureMs - silentFor + 1 };
}

/**
 * How long a Ready cluster stays Ready although its last heartbeat is older than `judgingSince`
 * (when this replica began judging: its start, or its leadership), because agents reconnect
 * with backoff after a control-plane restart or failover (kube-controller-manager's node startup
 * grace). Milliseconds left, or undefined to judge now. A heartbeat since then ends the grace.
 */
export function startupGraceLeft(input: { ready: boolean; lastHeartbeatAt?: number; judgingSince: number; now: number; graceMs: number }): number | undefined {
  if (!input.ready) return undefined;
  if (input.lastHeartbeatAt !== undefined && input.lastHeartbeatAt >= input.judgingSince) return undefined;
  const left = input.judgingSince + input.graceMs - input.now;
  return left > 0 ? left : undefined;
}

/**
 * Issue 25: how long a Ready cluster stays Ready although its heartbeats stopped, because this
 * replica's admission gate sent agents away in a reconnect storm and they are not all due back
 * yet (backlogMs, hub/admission-gate.ts): the cluster's agent may be one of them, and cannot be
 * heard before its slot. The grace lasts the backlog plus the failure threshold (the returning
 * agent's first heartbeat), and grows with a storm that grows. Undefined: judge now.
 */
export function stormGraceLeft(input: { ready: boolean; admissionBacklogMs: number; failureMs: number }): number | undefined {
  if (!input.ready || input.admissionBacklogMs <= 0) return undefined;
  return input.admissionBacklogMs + input.failureMs;
}

/** The longer of two graces (undefined: none). */
export function longerGrace(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b);
}
