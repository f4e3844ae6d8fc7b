// Overrides (DESIGN §4): per-cluster changes to a rendered template, from OverridePolicy and
// ClusterOverridePolicy in Karmada's shape. Pure: the caller picks the policies that match the
// template, this file orders them and applies the rules whose targetCluster matches the cluster.
//
// Semantics follow Karmada's overridemanager, with these deliberate differences:
// - Policies run ClusterOverridePolicy first, then OverridePolicy, each by namespace and name
//   (DESIGN §4); Karmada sorts each scope by selector specificity before the name.
// - A failure Karmada passes over silently is an error here, so the user sees it in status: an
//   image value that is neither a tag nor a digest, an override that leaves an invalid image, an
//   unknown operator or component, a container whose command/args is not a list of strings.
// - An overrider may not change the object's apiVersion, kind, metadata.name or
//   metadata.namespace (manifest-identity.ts): in the member that would be a delete and a create.
// - imageOverrider also covers initContainers and CronJob, and commandOverrider / argsOverrider
//   also find initContainers and CronJob's containers (Karmada: containers only, no CronJob).
// - An image with both a tag and a digest keeps both (Karmada's parser drops the digest).
// - fieldOverrider's differences are in field-overrider.ts.
// What stays as in Karmada: a command/args overrider naming a container that is not there, or on
// a kind without a pod template, changes nothing; labels/annotations remove and replace skip keys
// that are absent; add sets a key whether or not it is there.

import type { Cluster, KubeObject, OverridePolicy, OverrideSpec, PropagationPolicy, RuleWithCluster } from "../../shared/api/types.ts";
import { clusterMatches } from "../scheduling/placement.ts";
import { selectorMatches } from "../scheduling/policy-match.ts";
import { errorText } from "./json-patch.ts";
import { applyRule } from "./overriders.ts";

/** The overridden object and the rules that ran ("Kind/namespace/name rule i"), or why it failed. */
export type OverrideResult = { ok: true; object: KubeObject; applied: string[] } | { ok: false; message: string };

/** Whether the policy applies to the template: its scope, then any resourceSelector (none = all). */
export function overridePolicyMatches(policy: OverridePolicy, template: KubeObject): boolean {
  const namespace = template.metadata.namespace ?? "";
  if (policy.kind === "OverridePolicy") {
    const own = policy.metadata.namespace ?? "";
    if (own === "" || namespace !== own) return false;
  } else if (policy.kind !== "ClusterOverridePolicy") {
    return false;
  }
  const selectors: unknown = policy.spec?.resourceSelectors;
  if (selectors === undefined || (Array.isArray(selectors) && selectors.length === 0)) return true;
  if (!Array.isArray(selectors)) return false;
  // selectorMatches reads only the policy's kind and namespace, so a stand-in with the same scope
  // reuses PropagationPolicy's selector rules exactly.
  const scope: PropagationPolicy = {
    apiVersion: policy.apiVersion,
    kind: policy.kind === "OverridePolicy" ? "PropagationPolicy" : "ClusterPropagationPolicy",
    metadata: policy.metadata,
    spec: { resourceSelectors: [] },
  };
  return selectors.some((s) => typeof s === "object" && s !== null && selectorMatches(s, template, scope));
}

/** DESIGN §4 order: ClusterOverridePolicy before OverridePolicy, then namespace, then name; a new array. */
export function orderOverridePolicies(policies: OverridePolicy[]): OverridePolicy[] {
  return [...policies].sort(
    (a, b) =>
      scopeRank(a) - scopeRank(b) ||
      compareStrings(policyNamespace(a), policyNamespace(b)) ||
      compareStrings(a.metadata.name ?? "", b.metadata.name ?? ""),
  );
}

/**
 * Runs, in orderOverridePolicies' order, every rule of the given policies (already matched to the
 * template) whose targetCluster matches the cluster. Never throws and never mutates its inputs.
 */
export function applyOverrides(obj: KubeObject, cluster: Cluster, policies: OverridePolicy[]): OverrideResult {
  try {
    return applyOrdered(structuredClone(obj), cluster, orderOverridePolicies(policies));
  } catch (e) {
    // Only input no CRD schema admits gets here (a policy without metadata, an object that is not JSON).
    return { ok: false, message: `cannot apply overrides: ${errorText(e)}` };
  }
}

function applyOrdered(object: KubeObject, cluster: Cluster, policies: OverridePolicy[]): OverrideResult {
  const applied: string[] = [];
  for (const policy of policies) {
    const label = policyLabel(policy);
    const { rules, deprecated } = rulesOf(policy.spec);
    if (!Array.isArray(rules)) return { ok: false, message: `${label}: spec.overrideRules is not a list` };
    for (const [i, item] of (rules as unknown[]).entries()) {
      const name = deprecated ? "spec.overriders" : `rule ${i}`;
      const where = `${label} ${name}`;
      try {
        if (typeof item !== "object" || item === null) return { ok: false, message: `${where}: not an object` };
        const rule = item as RuleWithCluster;
        // An absent targetCluster means every cluster, as in Karmada.
        if (rule.targetCluster !== undefined && rule.targetCluster !== null && !clusterMatches(rule.targetCluster, cluster)) continue;
        const failure = applyRule(object, rule.overriders ?? {}, where);
        if (failure !== undefined) return { ok: false, message: failure };
      } catch (e) {
        return { ok: false, message: `${where}: ${errorText(e)}` };
      }
      applied.push(`${policy.kind}/${policyNamespace(policy)}/${policy.metadata.name ?? ""} ${name}`);
    }
  }
  return { ok: true, object, applied };
}

/**
 * A policy's rules as Karmada reads them: overrideRules; when that is absent or empty, the
 * deprecated top-level targetCluster + overriders as one rule (none when neither is given). The
 * schema refuses overrideRules beside a deprecated targetCluster or a non-empty deprecated
 * overriders, as Karmada's webhook does; a deprecated fieldOverrider beside overrideRules with
 * rules passes both and is ignored, as in Karmada.
 */
export function rulesOf(spec: OverrideSpec | undefined): { rules: unknown; deprecated: boolean } {
  const rules: unknown = spec?.overrideRules;
  if (Array.isArray(rules) && rules.length > 0) return { rules, deprecated: false };
  if (rules !== undefined && rules !== null && !Array.isArray(rules)) return { rules, deprecated: false };
  if (spec?.overriders === undefined && spec?.targetCluster === undefined) return { rules: [], deprecated: false };
  const rule: RuleWithCluster = { ...(spec.targetCluster === undefined ? {} : { targetCluster: spec.targetCluster }), overriders: spec.overriders ?? {} };
  return { rules: [rule], deprecated: true };
}

/** "OverridePolicy ns/name" or "ClusterOverridePolicy name", as messages name a policy. */
function policyLabel(policy: OverridePolicy): string {
  const ns = policyNamespace(policy);
  return `${policy.kind} ${ns === "" ? "" : `${ns}/`}${policy.metadata.name ?? ""}`;
}

function scopeRank(policy: OverridePolicy): number {
  return policy.kind === "ClusterOverridePolicy" ? 0 : 1;
}

function policyNamespace(policy: OverridePolicy): string {
  return policy.kind === "ClusterOverridePolicy" ? "" : (policy.metadata.namespace ?? "");
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
