// A binding's Scheduled, FullyApplied and Propagation conditions (DESIGN §6), from what the agents
// reported. Pure and deterministic: the same input gives the same conditions, so a controller that
// compares them with what is stored writes only on change.
import type { AggregatedStatusItem, Condition, RolloutState } from "../../shared/api/types.ts";

/** What bindingConditions reads. */
export interface BindingConditionsInput {
  /** Target cluster names, from spec.clusters. */
  clusters: string[];
  aggregated: AggregatedStatusItem[];
  /** Cluster → content hash of the Work the hub holds for it. */
  expectedHash: Record<string, string>;
  scheduleError?: string;
  /** Why replicas are unplaced, or why no cluster fits (the scheduler's message). */
  unschedulable?: string;
  /** No policy claims the template: it keeps its last placement (the binding controller's message). */
  unclaimed?: string;
  /** The kind's interpreter failed while scheduling (InterpretReplica): the operation and the message. */
  interpreterFailed?: string;
  /** The policy cannot take effect now (schedulerName, dependentOverrides): Scheduled=False with this reason. */
  held?: { reason: string; message: string };
  /** The policy sets fields Flotilla does not act on: PolicyFieldsSupported=False with this message. */
  unacted?: string;
  /** The schedule would go past a FederatedResourceQuota (issue 26): the binding keeps its last schedule. */
  quotaExceeded?: string;
  /** Replicas moved off Unschedulable pods (the binding's replicaMoves, as movesMessage says them). */
  moved?: string;
  /** A progressive rollout's state (issue 23), under a policy with spec.rollout. */
  rollout?: RolloutState;
  previous?: Condition[];
  /** RFC 3339 time used for a condition whose status changed. */
  now: string;
}

/** Caps a message's per-cluster list so a large fleet cannot outgrow the condition message. */
const MAX_LISTED = 20;

/** Returns the Scheduled, FullyApplied and Propagation conditions, keeping lastTransitionTime while a status holds. */
export function bindingConditions(input: BindingConditionsInput): Condition[] {
  const targets = [...new Set(input.clusters)].sort();
  const targetSet = new Set(targets);
  const items = new Map(input.aggregated.map((i) => [i.clusterName, i]));
  const expected = (c: string): string | undefined =>
    Object.hasOwn(input.expectedHash, c) ? input.expectedHash[c] : undefined;

  let scheduled: Omit<Condition, "lastTransitionTime">;
  if (input.interpreterFailed !== undefined) {
    scheduled = { type: "Scheduled", status: "False", reason: "InterpreterFailed", message: input.interpreterFailed };
  } else if (input.held !== undefined) {
    scheduled = { type: "Scheduled", status: "False", reason: input.held.reason, message: input.held.message };
  } else if (input.scheduleError !== undefined) {
    scheduled = { type: "Scheduled", status: "False", reason: "ComputePlacementFailed", message: input.scheduleError };
  } else if (input.unclaimed !== undefined) {
    scheduled = { type: "Scheduled", status: "False", reason: "NoPolicyClaims", message: input.unclaimed };
  } else if (input.quotaExceeded !== undefined) {
    // Karmada's reason; what runs keeps running (DESIGN §11).
    scheduled = { type: "Scheduled", status: "False", reason: "QuotaExceeded", message: `${input.quotaExceeded}; the binding keeps its last schedule (${clusterCount(targets.length)})` };
  } else if (input.unschedulable !== undefined) {
    // Karmada's NoClusterFit when nothing fits; partly placed replicas still run where they fit.
    const reason = targets.length === 0 ? "NoClusterFit" : "ReplicasUnplaced";
    const where = targets.length === 0 ? "" : ` (scheduled to ${clusterCount(targets.length)})`;
    scheduled = { type: "Scheduled", status: "False", reason, message: `${input.unschedulable}${where}` };
  } else {
    scheduled = { type: "Scheduled", status: "True", reason: "Scheduled", message: `scheduled to ${clusterCount(targets.length)}` };
  }

  const notApplied = targets.filter((c) => !isAsDesired(items.get(c), expected(c)));
  let fullyApplied: Omit<Condition, "lastTransitionTime">;
  if (targets.length === 0) {
    // Nothing applied anywhere is not "fully applied" (Karmada reads it the same way).
    fullyApplied = { type: "FullyApplied", status: "False", reason: "NotFullyApplied", message: "no target clusters" };
  } else if (notApplied.length === 0) {
    fullyApplied = {
      type: "FullyApplied",
      status: "True",
      reason: "FullyApplied",
      message: `applied on ${clusterCount(targets.length)}`,
    };
  } else {
    fullyApplied = {
      type: "FullyApplied",
      status: "False",
      reason: "NotFullyApplied",
      message: `not yet applied on ${capList(notApplied, ", ")}`,
    };
  }

  const problems = notApplied.map((c) => `${c}: ${clusterProblem(items.get(c), expected(c))}`);
  // A cluster that stopped being a target still holds the object until its agent confirms removal.
  const leftovers = input.aggregated
    .filter((i) => !targetSet.has(i.clusterName) && (i.reason ?? "") !== "")
    .sort((a, b) => (a.clusterName < b.clusterName ? -1 : a.clusterName > b.clusterName ? 1 : 0))
    .map((i) => `${i.clusterName}: ${clusterProblem(i, undefined)}`);
  const allProblems = [...problems, ...leftovers];
  let propagation: Omit<Condition, "lastTransitionTime">;
  if (input.scheduleError !== undefined) {
    const detail = allProblems.length === 0 ? "" : `; ${capList(allProblems, "; ")}`;
    propagation = {
      type: "Propagation",
      status: "False",
      reason: "ComputePlacementFailed",
      message: `${input.scheduleError}${detail}`,
    };
  } else if (allProblems.length > 0) {
    propagation = {
      type: "Propagation",
      status: "False",
      reason: "CheckClusters",
      message: capList(allProblems, "; "),
    };
  } else {
    propagation = {
      type: "Propagation",
      status: "True",
      reason: "Propagated",
      message: `propagated to ${clusterCount(targets.length)}`,
    };
  }

  const conditions = [scheduled, fullyApplied, propagation];
  // Present only while the blast-radius brake holds a removal of this binding's object somewhere.
  const held = input.aggregated.filter((i) => i.reason === "DeletionHeld").map((i) => i.clusterName).sort();
  if (held.length > 0) {
    conditions.push({ type: "DeletionHeld", status: "True", reason: "DeletionBudgetExceeded", message: `removal held on ${capList(held, ", ")} until approved: flotillactl deletions list` });
  }
  // Present only while a move of replicas off Unschedulable pods is in force.
  if (input.moved !== undefined) conditions.push({ type: "ReplicasMoved", status: "True", reason: "Unschedulable", message: input.moved });
  if (input.rollout !== undefined) conditions.push(rolloutCondition(input.rollout));
  // Present only while the policy sets a field Flotilla stores but does not act on: never silent.
  if (input.unacted !== undefined) conditions.push({ type: "PolicyFieldsSupported", status: "False", reason: "FieldsNotActedOn", message: input.unacted });
  return conditions.map((c) => withTransitionTime(c, input.previous, input.now));
}

/** The Rollout condition: True once the template's revision succeeded everywhere; the phase is its reason. */
export function rolloutCondition(state: RolloutState): Omit<Condition, "lastTransitionTime"> {
  const at = state.clusters.filter((c) => c.revision === state.revision && c.phase === "Succeeded").length;
  const summary = `revision ${state.revision}: ${at}/${state.clusters.length} clusters succeeded`;
  return { type: "Rollout", status: state.phase === "Succeeded" ? "True" : "False", reason: state.phase, message: state.message === undefined ? summary : `${summary}; ${state.message}` };
}

/** True when both lists hold the same conditions, whatever their order. */
export function conditionsEqual(a: Condition[] | undefined, b: Condition[] | undefined): boolean {
  const left = sortedByType(a ?? []);
  const right = sortedByType(b ?? []);
  if (left.length !== right.length) return false;
  return left.every((c, i) => {
    const d = right[i];
    return (
      d !== undefined &&
      c.type === d.type &&
      c.status === d.status &&
      c.reason === d.reason &&
      c.message === d.message &&
      c.lastTransitionTime === d.lastTransitionTime &&
      c.observedGeneration === d.observedGeneration
    );
  });
}

function isAsDesired(item: AggregatedStatusItem | undefined, expectedHash: string | undefined): boolean {
  return (
    item !== undefined &&
    item.applied === true &&
    (item.reason ?? "") === "" &&
    expectedHash !== undefined &&
    item.observedHash === expectedHash
  );
}

function clusterProblem(item: AggregatedStatusItem | undefined, expectedHash: string | undefined): string {
  if (item === undefined) return "waiting for the agent";
  const reason = item.reason ?? "";
  if (reason !== "") return item.message ? `${reason} ${item.message}` : reason;
  if (item.applied !== true) return "not applied yet";
  if (expectedHash === undefined) return "waiting for the hub to render its work";
  return "applied an older version";
}

function withTransitionTime(
  c: Omit<Condition, "lastTransitionTime">,
  previous: Condition[] | undefined,
  now: string,
): Condition {
  const prev = previous?.find((p) => p.type === c.type);
  const lastTransitionTime = prev !== undefined && prev.status === c.status ? prev.lastTransitionTime : now;
  return { ...c, lastTransitionTime };
}

function capList(entries: string[], separator: string): string {
  if (entries.length <= MAX_LISTED) return entries.join(separator);
  return `${entries.slice(0, MAX_LISTED).join(separator)}${separator}and ${entries.length - MAX_LISTED} more`;
}

function clusterCount(n: number): string {
  return n === 1 ? "1 cluster" : `${n} clusters`;
}

function sortedByType(conditions: Condition[]): Condition[] {
  return [...conditions].sort((x, y) => (x.type < y.type ? -1 : x.type > y.type ? 1 : 0));
}
