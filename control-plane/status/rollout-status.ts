// What a workload template's .status says about its rollout across the fleet, so that
// `kubectl rollout status` on the control cluster works as it does on one cluster: pure.
// - observedGeneration is the template's generation once every target cluster runs a Work
//   rendered from that generation and the member's controller has observed it (its status'
//   observedGeneration reached its generation); until then it is not raised, and kubectl waits.
//   A progressive rollout that stopped on failures (rolled back, aborted, paused) raises it too,
//   with Progressing False ProgressDeadlineExceeded: kubectl rollout status then fails.
// - Updated counts come only from such members: a member still on the old spec counts none.
// - Deployment conditions: Progressing is False with ProgressDeadlineExceeded when any member's
//   is (kubectl then fails as it would on that cluster); Available is True when every member's is.
//   Their messages change only when their status does, so a rollout costs few template writes.

import type { RolloutState } from "../../shared/api/types.ts";

/** One target cluster's part in a rollout. */
export interface MemberRollout {
  cluster: string;
  /** It holds, and reported on, the Work rendered from the template's current generation. */
  latest: boolean;
  /** The member object's .status as reported, with the member's metadata.generation as `generation`. */
  status: Record<string, unknown> | undefined;
}

/** The updated-count field of each kind kubectl rolls out. */
const UPDATED_FIELD: Readonly<Record<string, string>> = {
  Deployment: "updatedReplicas",
  StatefulSet: "updatedReplicas",
  DaemonSet: "updatedNumberScheduled",
};

/** A workload condition as Kubernetes writes it (times left out: they would make every write new). */
export interface WorkloadCondition {
  type: string;
  status: "True" | "False";
  reason: string;
  message: string;
}

/** Kinds whose rollout rolloutStatus describes. */
export const rolloutKinds: ReadonlySet<string> = new Set(Object.keys(UPDATED_FIELD));

/** Rollout fields to merge over the summed status, or undefined for a kind without a rollout. */
export function rolloutStatus(kind: string, generation: number | undefined, members: readonly MemberRollout[], fleetFailure?: string): Record<string, unknown> | undefined {
  const updatedField = UPDATED_FIELD[kind];
  if (updatedField === undefined) return undefined;
  // Before any member has reported there is nothing to tell (and nothing worth a write).
  if (!members.some((m) => m.status !== undefined)) return undefined;
  const current = members.filter((m) => m.latest && observedOwnGeneration(m.status));
  const out: Record<string, unknown> = {
    [updatedField]: current.reduce((n, m) => n + count(m.status?.[updatedField]), 0),
  };
  // A fleet rollout that stopped on failures has observed the spec and decided: observedGeneration is
  // raised, as a Deployment controller past its deadline raises it, so kubectl reads the condition.
  if (generation !== undefined && members.length > 0 && (current.length === members.length || fleetFailure !== undefined)) out.observedGeneration = generation;
  if (kind === "Deployment") out.conditions = deploymentConditions(members, current.length === members.length, fleetFailure);
  return out;
}

function deploymentConditions(members: readonly MemberRollout[], allCurrent: boolean, fleetFailure: string | undefined): WorkloadCondition[] {
  const byType = (type: string) => members.map((m) => ({ cluster: m.cluster, c: conditionsOf(m.status).find((x) => x.type === type) }));
  const missing = members.filter((m) => m.status === undefined).map((m) => m.cluster);
  const unavailable = byType("Available").filter((x) => x.c?.status !== "True").map((x) => x.cluster);
  const available: WorkloadCondition =
    members.length > 0 && unavailable.length === 0
      ? { type: "Available", status: "True", reason: "MinimumReplicasAvailable", message: `available in ${clusters(members.length)}` }
      : { type: "Available", status: "False", reason: "MinimumReplicasUnavailable", message: members.length === 0 ? "no target clusters" : "not yet available in every target cluster" };
  const exceeded = byType("Progressing").filter((x) => x.c?.status === "False" && x.c.reason === "ProgressDeadlineExceeded");
  let progressing: WorkloadCondition;
  if (fleetFailure !== undefined) {
    // A progressive rollout that stopped on failures: kubectl rollout status fails, as on one cluster.
    progressing = { type: "Progressing", status: "False", reason: "ProgressDeadlineExceeded", message: `fleet rollout: ${fleetFailure}` };
  } else if (exceeded.length > 0) {
    progressing = { type: "Progressing", status: "False", reason: "ProgressDeadlineExceeded", message: exceeded.map((x) => `${x.cluster}: ${x.c?.message ?? "progress deadline exceeded"}`).join("; ") };
  } else if (allCurrent && missing.length === 0 && members.length > 0 && byType("Progressing").every((x) => x.c?.reason === "NewReplicaSetAvailable")) {
    progressing = { type: "Progressing", status: "True", reason: "NewReplicaSetAvailable", message: `rolled out in ${clusters(members.length)}` };
  } else {
    progressing = { type: "Progressing", status: "True", reason: "ReplicaSetUpdated", message: `rolling out in ${clusters(members.length)}` };
  }
  return [available, progressing];
}

/**
 * Why a progressive rollout (issue 23) stopped short of the template's revision, for the template's
 * Progressing condition: rolled back, aborted, or paused on failures (not a user's pause). Undefined
 * while it goes on or once it succeeded.
 */
export function fleetRolloutFailure(state: RolloutState | undefined): string | undefined {
  if (state === undefined) return undefined;
  const stopped = state.phase === "RolledBack" || state.phase === "Aborted" || (state.phase === "Paused" && state.paused !== true);
  return stopped ? `${state.phase}: ${state.message ?? `revision ${state.revision} did not reach every cluster`}` : undefined;
}

/** Whether the member's controller has seen the member object's latest spec. */
function observedOwnGeneration(status: Record<string, unknown> | undefined): boolean {
  if (status === undefined) return false;
  const generation = status.generation;
  if (typeof generation !== "number") return true; // an agent that does not report it: trust the Work's hash
  return typeof status.observedGeneration === "number" && status.observedGeneration >= generation;
}

function conditionsOf(status: Record<string, unknown> | undefined): { type?: string; status?: string; reason?: string; message?: string }[] {
  return Array.isArray(status?.conditions) ? (status.conditions as { type?: string }[]) : [];
}

function count(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

function clusters(n: number): string {
  return `${n} cluster${n === 1 ? "" : "s"}`;
}

