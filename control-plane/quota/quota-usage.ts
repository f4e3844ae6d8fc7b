// The quota arithmetic (pure, issue 26): what a workload takes of a FederatedResourceQuota's
// resources (its replicas times what one replica requests, Karmada's CalculateResourceUsage),
// sums, and whether a namespace's use stays within `overall`. Exact: Kubernetes quantities, never
// floats (shared/quantity.ts), so "100m" three times is exactly "300m".
import type { ResourceList, StaticClusterAssignment } from "../../shared/api/quota.ts";
import { addQuantities, formatExactQuantity, parseExactQuantity, type Quantity, zeroQuantity } from "../../shared/quantity.ts";

/** Resource name → exact amount. */
export type Amounts = ReadonlyMap<string, Quantity>;

/** One workload as the quota sees it: how many replicas run (over every cluster) and what each requests. */
export interface Workload {
  replicas: number;
  /** Resource name → quantity per replica (the interpreter's replicaRequirements.resourceRequest). */
  requests: Readonly<Record<string, string>>;
}

/** A quantity from a ResourceList value (an integer is allowed, as the CRD's int-or-string). */
export function quantityOfValue(v: string | number): Quantity {
  return parseExactQuantity(String(v));
}

const times = (q: Quantity, n: number): Quantity => ({ ...q, mantissa: q.mantissa * BigInt(n) });

/** Sign of a − b. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  const d = addQuantities(a, times(b, -1)).mantissa;
  return d === 0n ? 0 : d > 0n ? 1 : -1;
}

/**
 * The amount of one overall resource name a workload takes. Karmada's names count the replica's
 * request of that name ("cpu", "memory"); Flotilla also reads a ResourceQuota's own names:
 * "requests.<name>" counts the request of <name>, and "pods" counts the replicas.
 */
function takes(name: string, w: Workload): Quantity | undefined {
  if (name === "pods") return { mantissa: BigInt(w.replicas), exponent: 0, format: "DecimalSI" };
  const request = w.requests[name] ?? (name.startsWith("requests.") ? w.requests[name.slice("requests.".length)] : undefined);
  return request === undefined ? undefined : times(parseExactQuantity(request), w.replicas);
}

/** What the workloads take of each resource `overall` names (names nothing takes are absent). */
export function usageOf(workloads: readonly Workload[], overall: ResourceList): Map<string, Quantity> {
  const used = new Map<string, Quantity>();
  for (const name of Object.keys(overall)) {
    for (const w of workloads) {
      if (w.replicas <= 0) continue;
      const q = takes(name, w);
      if (q !== undefined && q.mantissa !== 0n) used.set(name, addQuantities(used.get(name) ?? zeroQuantity, q));
    }
  }
  return used;
}

/** One resource over its limit. */
export interface Excess {
  resource: string;
  used: Quantity;
  hard: Quantity;
}

/** The resources of `overall` that `used` goes past, in name order. */
export function excessOf(used: Amounts, overall: ResourceList): Excess[] {
  const out: Excess[] = [];
  for (const resource of Object.keys(overall).sort()) {
    const u = used.get(resource);
    const hard = quantityOfValue(overall[resource] as string | number);
    if (u !== undefined && compareQuantities(u, hard) > 0) out.push({ resource, used: u, hard });
  }
  return out;
}

/** Amounts as a ResourceList of canonical strings, in name order. */
export function resourceList(amounts: Amounts): Record<string, string> {
  return Object.fromEntries([...amounts.keys()].sort().map((k) => [k, formatExactQuantity(amounts.get(k) as Quantity)]));
}

/**
 * What Karmada's webhook refuses in a spec, exactly (the CRD checks the sums to one part in 10^9
 * only: CEL has no exact sum of quantities): an assigned resource overall lacks, assignments that
 * add up past overall, a cluster assigned twice.
 */
export function specProblems(overall: ResourceList, assignments: readonly StaticClusterAssignment[]): string[] {
  const problems: string[] = listProblems(overall, "spec.overall");
  const seen = new Set<string>();
  const sums = new Map<string, Quantity>();
  assignments.forEach((a, i) => {
    problems.push(...listProblems(a.hard, `spec.staticAssignments[${i}].hard`));
    if (seen.has(a.clusterName)) problems.push(`spec.staticAssignments[${i}].clusterName: Duplicate value: ${JSON.stringify(a.clusterName)}`);
    seen.add(a.clusterName);
    for (const [k, v] of Object.entries(a.hard)) {
      if (!(k in overall)) problems.push(`spec.staticAssignments[${i}].hard[${k}]: Invalid value: ${JSON.stringify(k)}: assignment resourceName is not exist in overall`);
      else if (valueProblem(v) === undefined) sums.set(k, addQuantities(sums.get(k) ?? zeroQuantity, quantityOfValue(v)));
    }
  });
  const validOverall = Object.fromEntries(Object.entries(overall).filter(([, v]) => valueProblem(v) === undefined));
  for (const e of excessOf(sums, validOverall)) {
    problems.push(`spec.overall[${e.resource}]: Invalid value: ${JSON.stringify(formatExactQuantity(e.hard))}: overall is less than assignments (${formatExactQuantity(e.used)})`);
  }
  return problems;
}

/** A resource name: a qualified name, optionally prefixed by a DNS subdomain ("cpu", "requests.memory", "nvidia.com/gpu"). */
const RESOURCE_NAME = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** Why a ResourceList value is no quantity a quota can hold, or undefined. */
function valueProblem(v: string | number): string | undefined {
  let q: Quantity;
  try {
    q = quantityOfValue(v);
  } catch {
    return "must be a quantity";
  }
  return q.mantissa < 0n ? "must be greater than or equal to 0" : undefined;
}

/** Kubernetes' ResourceQuota checks of a ResourceList: each name qualified, each value a quantity of at least 0. */
function listProblems(list: ResourceList, path: string): string[] {
  const problems: string[] = [];
  for (const [k, v] of Object.entries(list)) {
    if (k.length > 316 || !RESOURCE_NAME.test(k)) problems.push(`${path}[${k}]: Invalid value: ${JSON.stringify(k)}: must be a standard resource name or a qualified name`);
    const bad = valueProblem(v);
    if (bad !== undefined) problems.push(`${path}[${k}]: Invalid value: ${JSON.stringify(String(v))}: ${bad}`);
  }
  return problems;
}
