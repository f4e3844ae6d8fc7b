// Sanity checks on what a heartbeat claims (DESIGN §7): pure. Capacity feeds the scheduler
// (dynamic weights), so one agent must not pull other clusters' replicas to itself with an
// absurd claim. A bad entry is left out and named in `problems`, which the Cluster's status
// shows; the rest of the heartbeat still counts (the cluster stays Ready).
import type { Heartbeat } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { parseQuantity } from "../../shared/quantity.ts";
import { BOUNDS } from "./message-bounds.ts";

export const CLAIM_BOUNDS = {
  /** Resource names per summary. */
  resources: 64,
  /** A quantity string ("64Gi"). */
  quantity: 64,
  /** No resource of a real member reaches this many base units (an exa-unit). */
  ceiling: 1e18,
  /** Nodes a member may say it has. */
  nodes: 1_000_000,
  /** group/version entries. */
  apiEnablements: 5_000,
} as const;

export interface CheckedHeartbeat {
  heartbeat: Heartbeat;
  /** One line per claim left out, for the Cluster's status; empty when all were sane. */
  problems: string[];
}

/** Why a quantity claim is not sane, or undefined. */
export function quantityProblem(name: string, q: string): string | undefined {
  if (name.length === 0 || name.length > BOUNDS.name) return `a resource name of ${name.length} characters`;
  if (q.length > CLAIM_BOUNDS.quantity) return `${name}: a quantity of ${q.length} characters`;
  let v: number;
  try {
    v = parseQuantity(q);
  } catch {
    return `${name}: ${JSON.stringify(q)} is not a quantity`;
  }
  if (!Number.isFinite(v)) return `${name}: ${JSON.stringify(q)} is not finite`;
  if (v < 0) return `${name}: ${JSON.stringify(q)} is negative`;
  if (v > CLAIM_BOUNDS.ceiling) return `${name}: ${JSON.stringify(q)} is above ${CLAIM_BOUNDS.ceiling}`;
  return undefined;
}

function saneQuantities(list: Record<string, string>, field: string, problems: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = Object.entries(list);
  if (entries.length > CLAIM_BOUNDS.resources) problems.push(`${field}: ${entries.length} resources (at most ${CLAIM_BOUNDS.resources}); the rest left out`);
  for (const [name, q] of entries.slice(0, CLAIM_BOUNDS.resources)) {
    const p = quantityProblem(name, q);
    if (p === undefined) out[name] = q;
    else problems.push(`${field}: ${p.slice(0, 2 * BOUNDS.word)}`);
  }
  return out;
}

function bounded(field: string, value: string, problems: string[]): string {
  if (value.length <= BOUNDS.word) return value;
  problems.push(`${field} is ${value.length} characters (at most ${BOUNDS.word})`);
  return "";
}

/** The heartbeat with its insane claims left out, and what was left out. */
export function checkHeartbeat(hb: Heartbeat): CheckedHeartbeat {
  const problems: string[] = [];
  const out: Heartbeat = {
    kubernetesVersion: bounded("kubernetesVersion", hb.kubernetesVersion, problems),
    agentVersion: bounded("agentVersion", hb.agentVersion, problems),
    nodeSummary: hb.nodeSummary,
    resourceSummary: hb.resourceSummary && {
      allocatable: saneQuantities(hb.resourceSummary.allocatable, "allocatable", problems),
      allocated: saneQuantities(hb.resourceSummary.allocated, "allocated", problems),
    },
    apiEnablements: hb.apiEnablements.slice(0, CLAIM_BOUNDS.apiEnablements).filter((gv) => gv.length > 0 && gv.length <= 2 * BOUNDS.name + 1),
  };
  if (out.apiEnablements.length < hb.apiEnablements.length) problems.push(`apiEnablements: ${hb.apiEnablements.length - out.apiEnablements.length} entries left out (empty, too long or over ${CLAIM_BOUNDS.apiEnablements})`);
  const nodes = hb.nodeSummary;
  if (nodes !== undefined && (nodes.total > CLAIM_BOUNDS.nodes || nodes.ready > nodes.total)) {
    problems.push(`nodeSummary: ${nodes.ready} ready of ${nodes.total} is not possible (at most ${CLAIM_BOUNDS.nodes} nodes)`);
    out.nodeSummary = undefined;
  }
  return { heartbeat: out, problems };
}
