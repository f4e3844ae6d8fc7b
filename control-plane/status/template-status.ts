// What the hub writes to a template's .status (DESIGN §6): the members' statuses aggregated by the
// kind's interpreter (a customization's AggregateStatus, else the native one: Deployment,
// StatefulSet, ReplicaSet, DaemonSet, Job, CronJob, Service, Ingress, Pod, PV, PVC, PDB, HPA),
// with the fleet's rollout fields over them for the kinds kubectl rolls out. A kind without an
// aggregation gets no status written. Pure.
import type { AggregatedStatusItem, KubeObject } from "../../shared/api/types.ts";
import { InterpreterError, type KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import { aggregatedStatusOf, statusItemsOf } from "../../shared/interpreter/native/adapter.ts";
import { type MemberRollout, rolloutStatus } from "./rollout-status.ts";
import { statusHolds } from "./status-holds.ts";

export interface TemplateStatusInput {
  template: KubeObject;
  /** The binding's target clusters now: only their statuses count. */
  targets: readonly string[];
  items: readonly AggregatedStatusItem[];
  /** The Work the hub holds for a cluster: its hash and the template generation it rendered. */
  workOf(cluster: string): { hash: string; templateGeneration?: number } | undefined;
  interpreter: KindInterpreter | undefined;
  /** Why the binding's progressive rollout stopped short (fleetRolloutFailure), if it did. */
  fleetFailure?: string;
}

/**
 * The merge patch of the template's .status, or undefined when it already holds; `failed` when a
 * customization's AggregateStatus failed (the status stays as it is).
 */
export function templateStatusPatch(input: TemplateStatusInput): { patch: Record<string, unknown> } | { failed: string } | undefined {
  const { template, targets, items } = input;
  const current = new Set(targets);
  const counted = items.filter((i) => current.has(i.clusterName) && i.status !== undefined && i.reason !== "ClusterNotReady");
  let aggregated: Record<string, unknown> | undefined;
  try {
    aggregated = aggregatedStatusOf(template, statusItemsOf(counted), input.interpreter);
  } catch (err) {
    if (!(err instanceof InterpreterError)) throw err;
    return { failed: err.message };
  }
  if (aggregated === undefined) return undefined;
  const byCluster = new Map(items.map((i) => [i.clusterName, i]));
  const members = targets.map((cluster): MemberRollout => {
    const item = byCluster.get(cluster);
    const work = input.workOf(cluster);
    const latest = work !== undefined && work.templateGeneration === template.metadata.generation && item?.observedHash === work.hash && item.applied === true && item.reason !== "ClusterNotReady";
    return { cluster, latest, status: item?.status };
  });
  // The rollout's observedGeneration and updated count are the fleet's (only members on the
  // current Work count), over the interpreter's, which cannot tell which Work a member runs.
  const sum = { ...aggregated, ...rolloutStatus(template.kind, template.metadata.generation, members, input.fleetFailure) };
  const had = (template as KubeObject & { status?: unknown }).status;
  // An interpreter's aggregate is the whole status: a field it no longer gives (a CronJob's
  // `active` once its jobs end) is removed, which a merge patch does only when told null.
  const removed = removedFields(had, sum);
  if (statusHolds(sum, had) && Object.keys(removed).length === 0) return undefined;
  return { patch: { ...removed, ...sum } };
}

/** `{field: null}` for each top-level field of `had` that `now` lacks. */
function removedFields(had: unknown, now: Record<string, unknown>): Record<string, null> {
  if (typeof had !== "object" || had === null) return {};
  return Object.fromEntries(Object.keys(had).filter((k) => !(k in now)).map((k) => [k, null]));
}
