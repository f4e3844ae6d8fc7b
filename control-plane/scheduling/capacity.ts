// Capacity estimates from a Cluster's resourceSummary (allocatable − allocated, cluster totals, as
// Karmada's general estimator reads it): what one replica, or one complete set of a
// multi-component workload, requests, and how many of them a cluster can still hold. Pure.
import type { Cluster, KubeObject, TargetCluster } from "../../shared/api/types.ts";
import type { Component, ReplicaRequirements } from "../../shared/interpreter/interpreter.ts";
import { parseQuantity } from "../../shared/quantity.ts";

/** Resource name → amount in base units (cores, bytes, a count); `pods` counts pods. */
export type ResourceAmounts = Record<string, number>;

/**
 * What one replica requests: the interpreter's `requires.resourceRequest` when it gives one (a
 * customization's GetReplicas, or a native kind's: containers summed, the largest init container,
 * the pod's overhead, as Karmada), otherwise the pod template's containers (`podRequestsOf`).
 * Always one pod.
 */
export function replicaRequest(template: KubeObject, requires: ReplicaRequirements | undefined): ResourceAmounts {
  const request = requires?.resourceRequest;
  if (request === undefined || Object.keys(request).length === 0) return podRequestsOf(template);
  return addAmounts({ pods: 1 }, amountsOf(request), 1);
}

/** The resource requests of one replica read from the template itself (sum over spec.template's containers), one pod. */
export function podRequestsOf(template: KubeObject): ResourceAmounts {
  const containers = (template.spec as { template?: { spec?: { containers?: { resources?: { requests?: Record<string, string> } }[] } } })?.template?.spec?.containers ?? [];
  let sums: ResourceAmounts = { pods: 1 };
  for (const c of containers) sums = addAmounts(sums, amountsOf(c.resources?.requests ?? {}), 1);
  return sums;
}

/**
 * What one complete set of a multi-component workload requests: over its components, replicas ×
 * each replica's resourceRequest, and replicas pods. A component without a request counts its pods.
 */
export function componentSetRequest(components: readonly Component[]): ResourceAmounts {
  let sums: ResourceAmounts = {};
  for (const c of components) {
    const replicas = Math.max(0, c.replicas);
    sums = addAmounts(sums, { pods: 1, ...amountsOf(c.replicaRequirements?.resourceRequest ?? {}) }, replicas);
  }
  return sums;
}

/**
 * How many more replicas a cluster can hold, from the resource summary its agent reports
 * (allocatable − allocated, per requested resource), plus what this workload already runs there.
 * No summary: nothing is known to be free.
 */
export function availableReplicas(c: Cluster, perReplica: ResourceAmounts, previous: readonly TargetCluster[]): number {
  const held = previous.find((t) => t.name === c.metadata.name)?.replicas ?? 0;
  return (unitsFree(c, perReplica) ?? 0) + held;
}

/**
 * How many complete sets of a multi-component workload a cluster can still hold (Karmada's
 * MaxAvailableComponentSets, over cluster totals: no per-node packing), plus the one it runs when
 * it holds the workload already (its pods are in `allocated`, so a full cluster would otherwise
 * push out its own). Undefined when the cluster reports no allocatable resources.
 */
export function availableComponentSets(c: Cluster, perSet: ResourceAmounts, holds: boolean): number | undefined {
  const free = unitsFree(c, perSet);
  if (free === undefined) return undefined;
  return free + (holds ? 1 : 0);
}

/** How many more replicas the cluster's summary says fit (nothing held counted); undefined without a summary. */
export function freeReplicas(c: Cluster, perReplica: ResourceAmounts): number | undefined {
  return unitsFree(c, perReplica);
}

/** Whether the cluster reports allocatable resources at all (its agent's summary). */
export function reportsCapacity(c: Cluster): boolean {
  return c.status?.resourceSummary?.allocatable !== undefined;
}

/** A set's or replica's request as a user reads it: `cpu 10, memory 20Gi, pods 3` (names sorted). */
export function showAmounts(amounts: ResourceAmounts): string {
  return Object.keys(amounts)
    .sort()
    .map((k) => `${k} ${showAmount(amounts[k] as number)}`)
    .join(", ");
}

// How many units of `need` fit in what the cluster has free; undefined without a summary. A
// resource the cluster does not report is no limit (as before: a request for an extended resource
// no agent counts does not make every cluster full).
function unitsFree(c: Cluster, need: ResourceAmounts): number | undefined {
  const summary = c.status?.resourceSummary;
  if (summary?.allocatable === undefined) return undefined;
  let fit = Number.POSITIVE_INFINITY;
  for (const [resource, amount] of Object.entries(need)) {
    if (amount <= 0) continue;
    const total = quantity(summary.allocatable[resource]);
    if (total === undefined) continue;
    const free = Math.max(0, total - (quantity(summary.allocated?.[resource]) ?? 0));
    // The epsilon absorbs float error in decimal quantities (0.7 / 0.1 is 6.999…, not 7).
    fit = Math.min(fit, Math.floor(free / amount + 1e-9));
  }
  return Number.isFinite(fit) ? fit : 0;
}

function addAmounts(a: ResourceAmounts, b: ResourceAmounts, times: number): ResourceAmounts {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v * times;
  return out;
}

// Malformed quantities are left out: the apiserver or the interpreter would have refused them.
function amountsOf(list: Record<string, string>): ResourceAmounts {
  const out: ResourceAmounts = {};
  for (const [k, q] of Object.entries(list)) {
    const v = quantity(q);
    if (v !== undefined) out[k] = (out[k] ?? 0) + v;
  }
  return out;
}

function quantity(q: string | undefined): number | undefined {
  if (q === undefined) return undefined;
  try {
    return parseQuantity(q);
  } catch {
    return undefined;
  }
}

// From Mi up only, so cores and pod counts stay plain numbers.
const BINARY = [
  ["Ti", 2 ** 40],
  ["Gi", 2 ** 30],
  ["Mi", 2 ** 20],
] as const;

function showAmount(v: number): string {
  if (v >= 2 ** 20 && Number.isInteger(v)) for (const [suffix, size] of BINARY) if (v % size === 0) return `${v / size}${suffix}`;
  if (Number.isInteger(v)) return String(v);
  return `${Math.round(v * 1000)}m`;
}
