// Which (Cluster)PropagationPolicy claims a resource template. Precedence, strongest first:
// a namespaced PropagationPolicy beats any ClusterPropagationPolicy (Karmada's detector looks at
// cluster policies only when no namespaced one matches); then the most specific matching selector
// (name > labelSelector > kind only); then spec.priority, higher first; then namespace and name
// ascending, so the answer never depends on the order policies arrive in. That precedence picks the
// policy for a template nobody claims; a claimed template stays with its policy unless another
// says `preemption: Always` and outranks it (claimPolicy).
// Two departures from Karmada, on purpose: Karmada ranks spec.priority above specificity (ours
// ranks it after, as the comment on PropagationSpec.priority says), and Karmada ignores a
// selector's labelSelector when its name is set (ours requires both to hold).

import { type KubeObject, LABELS, type PropagationPolicy, type ResourceBinding, type ResourceSelector } from "../../shared/api/types.ts";
import { matchesLabelSelector } from "../../shared/label-selector.ts";

/** How specific the selector that matched is: by name, by labels, or by apiVersion and kind alone. */
export type Specificity = "name" | "labels" | "kind";

/** The policy that claims a template, and how specifically it selected it. */
export interface PolicyMatch {
  policy: PropagationPolicy;
  specificity: Specificity;
}

const RANK: Record<Specificity, number> = { kind: 1, labels: 2, name: 3 };

/** Whether one of a policy's resourceSelectors selects the template, scope rules included. */
export function selectorMatches(selector: ResourceSelector, template: KubeObject, policy: PropagationPolicy): boolean {
  if (selector.apiVersion !== template.apiVersion || selector.kind !== template.kind) return false;
  // Flotilla's own rollout bookkeeping (ControllerRevisions, and the Secrets holding a Secret's
  // revisions) is never a template, whatever a policy selects: no member gets a copy.
  if (template.metadata.labels?.[LABELS.rolloutOf] !== undefined) return false;
  if (selector.name && selector.name !== template.metadata.name) return false;
  const namespace = template.metadata.namespace ?? "";
  if (policy.kind === "PropagationPolicy") {
    const own = policy.metadata.namespace ?? "";
    // A namespaced policy never selects cluster-scoped templates nor other namespaces; a selector
    // naming another namespace selects nothing (as in Karmada, where it can never match either).
    if (own === "" || namespace !== own) return false;
    if (selector.namespace && selector.namespace !== own) return false;
  } else if (policy.kind === "ClusterPropagationPolicy") {
    if (selector.namespace && selector.namespace !== namespace) return false;
  } else {
    return false;
  }
  return matchesLabelSelector(selector.labelSelector, template.metadata.labels);
}

/** The winning policy for the template, or undefined when none matches; input order is irrelevant. */
export function matchPolicy(template: KubeObject, policies: PropagationPolicy[]): PolicyMatch | undefined {
  let best: PolicyMatch | undefined;
  for (const policy of policies) {
    if (policy.metadata.deletionTimestamp) continue;
    const specificity = policySpecificity(template, policy);
    if (specificity === undefined) continue;
    const candidate = { policy, specificity };
    if (best === undefined || compareMatches(candidate, best) < 0) best = candidate;
  }
  return best;
}

/**
 * The policy that claims a template, given the policy that claimed it before (its binding's
 * labels, as policyId gives it; undefined when none). A claim holds while its policy exists and
 * still selects the template: another matching policy takes it only with `preemption: Always`
 * and when it outranks the claimant (Karmada's preemption; the default, Never, leaves it). An
 * unclaimed template goes to the best match. Undefined when no policy selects it: the caller
 * keeps the template's last placement (DESIGN §11), never reads it as intent to remove.
 */
export function claimPolicy(template: KubeObject, policies: PropagationPolicy[], claimant: string | undefined): PolicyMatch | undefined {
  const best = matchPolicy(template, policies);
  if (best === undefined || claimant === undefined || policyIdOf(best.policy) === claimant) return best;
  const held = policies.find((p) => policyIdOf(p) === claimant && !p.metadata.deletionTimestamp);
  const heldSpecificity = held === undefined ? undefined : policySpecificity(template, held);
  if (held === undefined || heldSpecificity === undefined) return best;
  const claim = { policy: held, specificity: heldSpecificity };
  let preemptor: PolicyMatch | undefined;
  for (const policy of policies) {
    if (policy.metadata.deletionTimestamp || policy.spec?.preemption !== "Always" || policy === held) continue;
    const specificity = policySpecificity(template, policy);
    if (specificity === undefined) continue;
    const candidate = { policy, specificity };
    if (!outranks(candidate, claim)) continue;
    if (preemptor === undefined || compareMatches(candidate, preemptor) < 0) preemptor = candidate;
  }
  return preemptor ?? claim;
}

/** A policy's identity as a binding's labels record it: "namespace/name", "/name" for a ClusterPropagationPolicy. */
export function policyIdOf(p: PropagationPolicy): string {
  return `${p.kind === "ClusterPropagationPolicy" ? "" : (p.metadata.namespace ?? "")}/${p.metadata.name ?? ""}`;
}

/** The policy a binding's labels name, as policyIdOf gives it; undefined when no policy placed it (a dependency's, or one no policy claims now). */
export function bindingPolicyId(b: ResourceBinding): string | undefined {
  const name = b.metadata.labels?.[LABELS.policyName];
  return name === undefined ? undefined : `${b.metadata.labels?.[LABELS.policyNamespace] ?? ""}/${name}`;
}

/** Strictly stronger by scope, then selector specificity, then priority: names never decide a preemption. */
function outranks(a: PolicyMatch, b: PolicyMatch): boolean {
  const by = scopeRank(a.policy) - scopeRank(b.policy) || RANK[a.specificity] - RANK[b.specificity] || priority(a.policy) - priority(b.policy);
  return by > 0;
}

/** "Kind/namespace/name", namespace empty for a ClusterPropagationPolicy. */
export function policyKey(policy: PropagationPolicy): string {
  return `${policy.kind}/${policyNamespace(policy)}/${policy.metadata.name ?? ""}`;
}

function policySpecificity(template: KubeObject, policy: PropagationPolicy): Specificity | undefined {
  const selectors: unknown = policy.spec?.resourceSelectors;
  if (!Array.isArray(selectors)) return undefined;
  let best: Specificity | undefined;
  for (const selector of selectors as ResourceSelector[]) {
    if (!selectorMatches(selector, template, policy)) continue;
    // An empty labelSelector ({}) still counts as a label match, as in Karmada.
    const s: Specificity = selector.name ? "name" : selector.labelSelector ? "labels" : "kind";
    if (best === undefined || RANK[s] > RANK[best]) best = s;
  }
  return best;
}

/** Negative when a wins over b. */
function compareMatches(a: PolicyMatch, b: PolicyMatch): number {
  return (
    scopeRank(b.policy) - scopeRank(a.policy) ||
    RANK[b.specificity] - RANK[a.specificity] ||
    priority(b.policy) - priority(a.policy) ||
    compareStrings(policyNamespace(a.policy), policyNamespace(b.policy)) ||
    compareStrings(a.policy.metadata.name ?? "", b.policy.metadata.name ?? "")
  );
}

function scopeRank(policy: PropagationPolicy): number {
  return policy.kind === "PropagationPolicy" ? 2 : 1;
}

function priority(policy: PropagationPolicy): number {
  const p = policy.spec.priority;
  return typeof p === "number" && Number.isFinite(p) ? p : 0;
}

function policyNamespace(policy: PropagationPolicy): string {
  return policy.kind === "ClusterPropagationPolicy" ? "" : (policy.metadata.namespace ?? "");
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
