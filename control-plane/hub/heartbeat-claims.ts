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
  /** Nodes a member may say it has: the default of --max-cluster-nodes (GKE's largest clusters hold 65,000). */
  nodes: 65_000,
  /** group/version entries. */
  apiEnablements: 5_000,
} as const;

/**
 * The most one node holds of a resource the scheduler divides by (the largest machines sold today
 * are below these: 896 vCPU, 24 TiB): a claim above nodes × this counts as nodes × this (capped,
 * not left out: a resource left out would bound nothing). A lying agent can still claim what its
 * node count allows; --max-cluster-nodes bounds that.
 */
export const PER_NODE_BOUNDS: ReadonlyMap<string, number> = new Map([
  ["cpu", 1024],
  ["memory", 32 * 2 ** 40],
  ["pods", 1024],
]);

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

/** Caps the claims of cpu, memory and pods at what `nodes` nodes could hold, and says which. */
function withinNodes(list: Record<string, string>, field: string, nodes: number, problems: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, q] of Object.entries(list)) {
    // A Map: a resource named like an Object member ("valueOf", "constructor") is just another name.
    const perNode = PER_NODE_BOUNDS.get(name);
    const most = perNode === undefined ? Infinity : Math.min(nodes * perNode, CLAIM_BOUNDS.ceiling);
    if (parseQuantity(q) <= most) {
      out[name] = q;
      continue;
    }
    out[name] = String(most);
    problems.push(`${field}: ${name} ${q} is more than ${nodes} node${nodes === 1 ? "" : "s"} hold (at most ${perNode} each): counted as ${most}`);
  }
  return out;
}

/**
 * The heartbeat with its insane claims left out, and what was left out. maxNodes: --max-cluster-nodes.
 * Capacity counts only as far as the nodes the heartbeat names could hold it.
 */
export function checkHeartbeat(hb: Heartbeat, maxNodes: number = CLAIM_BOUNDS.nodes): CheckedHeartbeat {
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
  if (nodes !== undefined && (nodes.total > maxNodes || nodes.ready > nodes.total)) {
    problems.push(`nodeSummary: ${nodes.ready} ready of ${nodes.total} is not possible (at most ${maxNodes} nodes, --max-cluster-nodes)`);
    out.nodeSummary = undefined;
  }
  if (out.resourceSummary !== undefined) {
    const n = out.nodeSummary?.total ?? 0;
    out.resourceSummary = { allocatable: withinNodes(out.resourceSummary.allocatable, "allocatable", n, problems), allocated: withinNodes(out.resourceSummary.allocated, "allocated", n, problems) };
  }
  return { heartbeat: out, problems };
}
