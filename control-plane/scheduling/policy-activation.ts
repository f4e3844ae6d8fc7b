// Whether and how a policy takes effect on a template (Karmada's schedulerName,
// dependentOverrides, activationPreference and the deprecated association). Pure: the binding
// controller asks, then places the template with the policy this returns, or holds the binding.
// - schedulerName other than default-scheduler: Flotilla serves one scheduler, so, as a Karmada
//   binding whose scheduler does not run, the binding is not scheduled; it keeps what it has.
// - dependentOverrides: the policy waits until every named OverridePolicy (ClusterOverridePolicy
//   for a ClusterPropagationPolicy) exists; meanwhile the binding keeps what it has.
// - activationPreference Lazy: a policy change reaches a template only when the template changes.
//   The binding records a digest of the template it last followed the policy for (its stamp);
//   while the template still has that digest, the binding keeps the policy fields it has.
// - schedulePriority (KubePriorityClass): the binding records the PriorityClass's value
//   (spec.schedulePriority.priority), which orders the binding controller's queue; a class that
//   does not exist holds the policy, as Karmada's detector refuses to build the binding.
// - association (deprecated): acts as propagateDeps.
import { DEFAULT_SCHEDULER_NAME, type KubeObject, LABELS, type PropagationPolicy, type ResourceBinding } from "../../shared/api/types.ts";
import { contentHash } from "../../shared/content-hash.ts";
import { bindingPolicyId, policyIdOf } from "./policy-match.ts";

/** Why a policy cannot take effect now; the binding keeps what it has and says so. */
export interface PolicyHold {
  reason: "SchedulerNameNotServed" | "DependentOverridesMissing" | "PriorityClassNotFound";
  message: string;
}

/**
 * The policy's hold, if any; overrideExists answers for the policy's scope (its namespace, or
 * cluster-wide); priorityValue gives a PriorityClass's value (undefined: no such class).
 */
export function policyHold(policy: PropagationPolicy, overrideExists: (name: string) => boolean, priorityValue: (name: string) => number | undefined = () => 0): PolicyHold | undefined {
  const who = `${policy.kind} ${policyIdOf(policy).replace(/^\//, "")}`;
  const scheduler = policy.spec.schedulerName ?? DEFAULT_SCHEDULER_NAME;
  if (scheduler !== DEFAULT_SCHEDULER_NAME) {
    return {
      reason: "SchedulerNameNotServed",
      message: `${who} asks for schedulerName "${scheduler}"; Flotilla serves only "${DEFAULT_SCHEDULER_NAME}", so nothing schedules this template: it keeps what it has`,
    };
  }
  const kind = policy.kind === "ClusterPropagationPolicy" ? "ClusterOverridePolicy" : "OverridePolicy";
  const missing = [...new Set(policy.spec.dependentOverrides ?? [])].filter((n) => !overrideExists(n)).sort();
  if (missing.length > 0) {
    return {
      reason: "DependentOverridesMissing",
      message: `${who} waits for its dependentOverrides: ${kind} ${missing.join(", ")} not found; the template keeps what it has until ${missing.length === 1 ? "it exists" : "they exist"}`,
    };
  }
  const priority = policy.spec.schedulePriority;
  if (priority !== undefined && priorityValue(priority.priorityClassName) === undefined) {
    return {
      reason: "PriorityClassNotFound",
      message: `${who} takes its schedulePriority from PriorityClass ${priority.priorityClassName}, which does not exist in the control cluster; the template keeps what it has until it does`,
    };
  }
  return undefined;
}

/** A digest of what a template says (not its status, not Flotilla's own annotations). */
export function templateStamp(template: KubeObject): string {
  const annotations = Object.fromEntries(Object.entries(template.metadata.annotations ?? {}).filter(([k]) => !k.startsWith("flotilla.dev/")));
  const { status: _status, metadata, ...rest } = template as KubeObject & { status?: unknown };
  return contentHash({ ...rest, metadata: { labels: metadata.labels ?? {}, annotations } }).slice(0, 16);
}

/** The policy to place a template with, and the stamp its binding records (Lazy policies only). */
export interface ActivePolicy {
  policy: PropagationPolicy;
  stamp?: string;
  /** Lazy, and the template has not changed since the binding followed the policy: its fields are the binding's. */
  deferred: boolean;
}

/**
 * The policy as it takes effect on the template. Under Lazy, when the existing binding (made by
 * this policy) was last written for this very template, the policy's placement fields are the
 * binding's: a change to the policy waits for the template's next change.
 */
export function activePolicy(policy: PropagationPolicy, template: KubeObject, existing: ResourceBinding | undefined): ActivePolicy {
  const spec = policy.spec.association === true && policy.spec.propagateDeps === undefined ? { ...policy.spec, propagateDeps: true } : policy.spec;
  const current = spec === policy.spec ? policy : { ...policy, spec };
  if (policy.spec.activationPreference !== "Lazy") return { policy: current, deferred: false };
  const stamp = templateStamp(template);
  const recorded = existing?.metadata.annotations?.[LABELS.templateStamp];
  if (existing === undefined || recorded !== stamp || bindingPolicyId(existing) !== policyIdOf(policy)) return { policy: current, stamp, deferred: false };
  return { policy: followedPolicy({ ...policy, spec }, existing), stamp, deferred: true };
}

/** The policy with the placement fields its binding followed last (the rest, its own). */
export function followedPolicy(policy: PropagationPolicy, binding: ResourceBinding): PropagationPolicy {
  const b = binding.spec;
  const { placement: _p, conflictResolution: _c, suspension: _s, propagateDeps: _d, preserveResourcesOnDeletion: _r, rollout: _o, ...others } = policy.spec;
  const spec = {
    ...others,
    ...(b.placement ? { placement: b.placement } : {}),
    ...(b.conflictResolution ? { conflictResolution: b.conflictResolution } : {}),
    ...(b.suspension ? { suspension: b.suspension } : {}),
    ...(b.propagateDeps === true ? { propagateDeps: true } : {}),
    ...(b.preserveResourcesOnDeletion === true ? { preserveResourcesOnDeletion: true } : {}),
    ...(b.rollout ? { rollout: b.rollout } : {}),
  };
  return { ...policy, spec };
}
