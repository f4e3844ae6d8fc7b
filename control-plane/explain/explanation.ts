// Why a template is, or is not, where a user expects it (issue 24): the facts the control plane
// holds (the policies, the binding, the schedule outcome, the Work store, the agents' reports,
// the clusters) assembled into one Explanation. Pure: explain.ts reads the facts, text.ts
// renders the result.
import type { Cluster, KubeObject, PropagationPolicy, ResourceBinding } from "../../shared/api/types.ts";
import type { ClusterVerdict } from "../scheduling/cluster-verdicts.ts";
import type { ResourceAmounts } from "../scheduling/capacity.ts";
import { bindingPolicyId, claimPolicy, matchPolicy, type Specificity } from "../scheduling/policy-match.ts";
import type { ScheduleOutcome } from "../scheduling/schedule-outcomes.ts";
import { explainCluster } from "./cluster-explanation.ts";
import { reasonSentence } from "./reasons.ts";

/** The template asked about. */
export interface TemplateId {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/** What the control plane holds on one cluster for the template. */
export interface ClusterFacts {
  /** The rendered Work: its content hash and, under a rollout, its revision. */
  work?: { hash: string; revision?: string };
  /** Why no Work could be rendered (an override failed). */
  renderError?: string;
  /** The agent's last report on the Work, and when it last changed (ms), if this replica heard it. */
  report?: { observedHash: string; applied: boolean; available: boolean; reason: string; message: string; at?: number; manifests: { object: string; reason: string; message: string }[] };
}

/** Every fact explain reads, as explain.ts gathers them from the caches and stores. */
export interface ExplainFacts {
  ref: TemplateId;
  /** The template in the control cluster; undefined when it does not exist. */
  template: KubeObject | undefined;
  policies: readonly PropagationPolicy[];
  binding: ResourceBinding | undefined;
  clusters: readonly Cluster[];
  /** The scheduler's last outcome (the leader's, in memory). */
  outcome?: ScheduleOutcome;
  perCluster: Readonly<Record<string, ClusterFacts>>;
  requireAcceptance?: boolean;
  /** What one replica requests, for the capacity rule. */
  perReplica?: ResourceAmounts;
  /** Now (ms), for "12s ago". */
  now: number;
  /** Only this cluster's section. */
  cluster?: string;
  /** The Events about the template (the recorder's, and others'); undefined: not read (the reason in eventsError). */
  events?: readonly EventFact[];
  eventsError?: string;
}

/** An Event about the template. */
export interface EventFact {
  type: string;
  reason: string;
  message: string;
  count: number;
  lastTimestamp: string;
  component?: string;
}

/** How many of the latest Events an explanation shows. */
const EVENTS_SHOWN = 5;

/** A policy as explain names it. */
export interface PolicyFact {
  kind: string;
  namespace?: string;
  name: string;
  /** How it selected the template: by name, labels, or kind alone. */
  specificity: Specificity;
  priority: number;
  preemption?: string;
}

/** A condition with its meaning. */
export interface ConditionFact {
  type: string;
  status: string;
  reason: string;
  message: string;
  since?: string;
  meaning?: string;
}

/** One cluster's section. */
export interface ClusterExplanation {
  cluster: string;
  ready: { status: string; reason?: string; message?: string; lastHeartbeatTime?: string };
  /** The placement rule's verdict, or "noPolicy" when no policy places the template (no rule applies). */
  verdict: ClusterVerdict | { cluster: string; placed: false; rule: "noPolicy"; detail: string };
  /** Replicas the binding asks for in all, when it divides them. */
  totalReplicas?: number;
  work?: {
    rendered: boolean;
    hash?: string;
    revision?: string;
    renderError?: string;
    /** The agent reports on exactly this Work (it has it). */
    shipped: boolean;
    observedHash?: string;
    applied?: boolean;
    health?: string;
    reason?: string;
    /** The manifest the reason is about, when the agent reported it on one object. */
    object?: string;
    meaning?: string;
    message?: string;
    /** When its report last changed (RFC 3339) and how long ago, in seconds. */
    at?: string;
    agoSeconds?: number;
    failedManifests?: { object: string; reason: string; message: string }[];
  };
  rollout?: { phase: string; revision: string; since: string; message?: string };
  /** The section as plain sentences, each with the facts that prove it. */
  sentences: string[];
}

/** The whole answer: JSON-able; text.ts renders it. */
export interface Explanation {
  template: TemplateId & { found: boolean };
  policy?: PolicyFact;
  otherPolicies: PolicyFact[];
  binding?: { kind: string; namespace?: string; name: string; replicas?: number; conditions: ConditionFact[]; requiredBy?: string[] };
  schedule?: ScheduleOutcome;
  rollout?: { phase: string; revision: string; stableRevision: string; message?: string; waitingFor?: string; paused?: boolean; meaning?: string };
  /** The latest Events about the template, newest first. */
  events?: EventFact[];
  /** The answer in general: policy, schedule, rollout. */
  sentences: string[];
  clusters: ClusterExplanation[];
}

/** The explanation of the facts. */
export function explainFacts(f: ExplainFacts): Explanation {
  const sentences: string[] = [];
  const what = `${f.ref.kind} ${f.ref.namespace ? `${f.ref.namespace}/` : ""}${f.ref.name}`;
  if (f.template === undefined) sentences.push(`${what} does not exist in the control cluster${f.binding === undefined ? "" : "; its binding remains until the garbage collector removes it"}.`);
  const claimant = f.binding === undefined ? undefined : bindingPolicyId(f.binding);
  const match = f.template === undefined ? undefined : claimPolicy(f.template, [...f.policies], claimant);
  const policy = match === undefined ? undefined : policyFact(match.policy, match.specificity);
  const others = f.template === undefined ? [] : otherMatches(f.template, f.policies, match?.policy);
  if (f.template !== undefined) {
    if (policy === undefined) {
      const requiredBy = (f.binding?.spec.requiredBy ?? []).map((r) => r.name);
      if (requiredBy.length > 0) sentences.push(`No policy selects ${what}; it is propagated as a dependency of ${requiredBy.join(", ")} (propagateDeps).`);
      else sentences.push(`No PropagationPolicy or ClusterPropagationPolicy selects ${what} (none of their resourceSelectors matches its apiVersion, kind, namespace, name and labels)${f.binding === undefined ? ", so it is not propagated anywhere" : "; it keeps its last placement"}.`);
    } else {
      sentences.push(`${policyName(policy)} claims ${what} (selected by ${policy.specificity === "kind" ? "apiVersion and kind" : policy.specificity}, priority ${policy.priority}).`);
    }
    for (const o of others) sentences.push(`${policyName(o)} also selects it (by ${o.specificity === "kind" ? "apiVersion and kind" : o.specificity}, priority ${o.priority}) but does not claim it: ${policy === undefined ? "" : `${policyName(policy)} ranks higher or holds the claim (namespaced over cluster-wide, then name over labels over kind, then priority${o.preemption === "Always" ? "" : "; it has no preemption: Always"})`}.`);
  }
  const conditions = (f.binding?.status?.conditions ?? []).map((c): ConditionFact => {
    const meaning = reasonSentence(c.reason);
    return { type: c.type, status: c.status, reason: c.reason, message: c.message, ...(c.lastTransitionTime ? { since: c.lastTransitionTime } : {}), ...(meaning === undefined ? {} : { meaning }) };
  });
  for (const c of conditions) {
    if (c.status === "True" && c.type !== "DeletionHeld" && c.type !== "ReplicasMoved") continue;
    sentences.push(`Binding condition ${c.type}=${c.status}, reason ${c.reason}: ${c.meaning ?? ""} (${c.message}${c.since ? `; since ${c.since}` : ""}).`);
  }
  if (f.outcome?.error !== undefined) sentences.push(`The scheduler cannot schedule the policy: ${f.outcome.error}.`);
  if (f.outcome?.unschedulable !== undefined) sentences.push(`The scheduler left replicas unplaced: ${f.outcome.unschedulable}.`);
  if (f.outcome?.interpreterFailed !== undefined) sentences.push(`The kind's interpreter failed: ${f.outcome.interpreterFailed}.`);
  const rollout = rolloutFact(f.binding);
  if (rollout !== undefined) sentences.push(`Rollout of revision ${rollout.revision} is ${rollout.phase}${rollout.paused === true ? " (paused)" : ""}${rollout.waitingFor ? `, waiting for approval ${rollout.waitingFor}` : ""}: ${rollout.meaning ?? ""}${rollout.message ? ` (${rollout.message})` : ""}`);
  const events = [...(f.events ?? [])].sort((a, b) => (a.lastTimestamp < b.lastTimestamp ? 1 : a.lastTimestamp > b.lastTimestamp ? -1 : 0)).slice(0, EVENTS_SHOWN);
  for (const e of events) sentences.push(`Event ${e.type} ${e.reason}${e.count > 1 ? ` (${e.count} times)` : ""}, last at ${e.lastTimestamp}${e.component ? ` from ${e.component}` : ""}: ${e.message}`);
  if (f.eventsError !== undefined) sentences.push(`The template's Events could not be read: ${f.eventsError}.`);
  const placement = { ...(policy === undefined ? {} : { policy: match?.policy }), binding: f.binding };
  const clusters = f.clusters
    .filter((c) => f.cluster === undefined || c.metadata.name === f.cluster)
    .map((c) => explainCluster(c, f, placement))
    .sort((a, b) => (a.cluster < b.cluster ? -1 : 1));
  if (f.cluster !== undefined && clusters.length === 0) sentences.push(`No cluster named ${f.cluster} is registered.`);
  return {
    template: { ...f.ref, found: f.template !== undefined },
    ...(policy === undefined ? {} : { policy }),
    otherPolicies: others,
    ...(f.binding === undefined ? {} : { binding: bindingFact(f.binding, conditions) }),
    ...(f.outcome === undefined ? {} : { schedule: f.outcome }),
    ...(rollout === undefined ? {} : { rollout }),
    ...(f.events === undefined ? {} : { events }),
    sentences,
    clusters,
  };
}

/** "PropagationPolicy default/web", "ClusterPropagationPolicy all". */
export function policyName(p: { kind: string; namespace?: string; name: string }): string {
  return `${p.kind} ${p.namespace ? `${p.namespace}/` : ""}${p.name}`;
}

function policyFact(p: PropagationPolicy, specificity: Specificity): PolicyFact {
  const priority = typeof p.spec.priority === "number" ? p.spec.priority : 0;
  return {
    kind: p.kind,
    ...(p.kind === "PropagationPolicy" && p.metadata.namespace ? { namespace: p.metadata.namespace } : {}),
    name: p.metadata.name ?? "",
    specificity,
    priority,
    ...(p.spec.preemption === undefined ? {} : { preemption: p.spec.preemption }),
  };
}

// The policies that select the template besides the claimant, each judged alone by the real match.
function otherMatches(template: KubeObject, policies: readonly PropagationPolicy[], claimant: PropagationPolicy | undefined): PolicyFact[] {
  const out: PolicyFact[] = [];
  for (const p of policies) {
    if (p === claimant) continue;
    const m = matchPolicy(template, [p]);
    if (m !== undefined) out.push(policyFact(p, m.specificity));
  }
  return out.sort((a, b) => (policyName(a) < policyName(b) ? -1 : 1));
}

function bindingFact(b: ResourceBinding, conditions: ConditionFact[]): NonNullable<Explanation["binding"]> {
  const requiredBy = (b.spec.requiredBy ?? []).map((r) => r.name);
  return {
    kind: b.kind,
    ...(b.metadata.namespace ? { namespace: b.metadata.namespace } : {}),
    name: b.metadata.name ?? "",
    ...(b.spec.replicas === undefined ? {} : { replicas: b.spec.replicas }),
    conditions,
    ...(requiredBy.length > 0 ? { requiredBy } : {}),
  };
}

function rolloutFact(b: ResourceBinding | undefined): Explanation["rollout"] {
  const r = b?.status?.rollout;
  if (r === undefined) return undefined;
  const meaning = reasonSentence(r.phase);
  return {
    phase: r.phase,
    revision: r.revision,
    stableRevision: r.stableRevision,
    ...(r.message === undefined ? {} : { message: r.message }),
    ...(r.waitingFor === undefined ? {} : { waitingFor: r.waitingFor }),
    ...(r.paused === undefined ? {} : { paused: r.paused }),
    ...(meaning === undefined ? {} : { meaning }),
  };
}
