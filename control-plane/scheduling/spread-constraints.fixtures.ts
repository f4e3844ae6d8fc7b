// Test support for the spread constraint tests: a fleet over regions, zones and providers, and the table runner.
import type { Cluster, ClusterSpec } from "../../shared/api/types.ts";
import { applySpreadConstraints } from "./spread-constraints.ts";
import type { SpreadConstraint, SpreadResult } from "./spread-constraints.ts";

export function cluster(name: string, spec: ClusterSpec = {}, labels?: Record<string, string>): Cluster {
  return { apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name, labels }, spec };
}

// Deliberately not in name order: the answer must come back sorted.
// Regions: us has 3 clusters over 2 zones, eu 2 over 2 zones, ap 1.
export const fleet: Cluster[] = [
  cluster("us-3", { provider: "gcp", region: "us", zone: "us-b" }),
  cluster("eu-1", { provider: "aws", region: "eu", zone: "eu-a" }, { tier: "gold" }),
  cluster("ap-1", { provider: "azure", region: "ap", zone: "ap-a" }, { tier: "silver" }),
  cluster("us-1", { provider: "gcp", region: "us", zone: "us-a" }, { tier: "gold" }),
  cluster("nowhere", {}, { tier: "gold" }),
  cluster("eu-2", { provider: "aws", region: "eu", zone: "eu-b" }, { tier: "silver" }),
  cluster("us-2", { provider: "gcp", region: "us", zone: "us-a" }, { tier: "gold" }),
];

export function only(...names: string[]): Cluster[] {
  return fleet.filter((c) => names.includes(c.metadata.name ?? ""));
}

export interface Bounds {
  min?: number;
  max?: number;
}
export function by(spreadByField: SpreadConstraint["spreadByField"]): (bounds: Bounds) => SpreadConstraint {
  return (bounds) => ({ spreadByField, minGroups: bounds.min, maxGroups: bounds.max });
}
export const region = by("region");
export const zone = by("zone");
export const provider = by("provider");
export const clusters = by("cluster");
export const label = (key: string, bounds: Bounds): SpreadConstraint => ({ spreadByLabel: key, minGroups: bounds.min, maxGroups: bounds.max });

export const everyRegional = ["ap-1", "eu-1", "eu-2", "us-1", "us-2", "us-3"];

export interface Case {
  name: string;
  constraints: SpreadConstraint[];
  candidates?: Cluster[];
  previous?: string[];
  capacity?: Record<string, number>;
  /** Either the chosen clusters (sorted) or the exact error. */
  want: string[] | { error: string };
}

export function run(c: Omit<Case, "name" | "want">): SpreadResult {
  return applySpreadConstraints({ candidates: c.candidates ?? fleet, constraints: c.constraints, previous: c.previous ?? [], capacity: c.capacity });
}

export function want(c: Case): SpreadResult {
  return Array.isArray(c.want) ? { clusters: c.want } : c.want;
}
