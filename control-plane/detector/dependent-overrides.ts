// A policy's dependentOverrides (Karmada's): which override policies it waits for, looked up in
// the caches, and the policies to look at again when one of them appears or goes.
import type { OverridePolicy, PropagationPolicy } from "../../shared/api/types.ts";
import type { Caches } from "../caches.ts";

/** Whether an override policy of the policy's scope exists: its namespace's OverridePolicy, or a ClusterOverridePolicy. */
export function overrideLookup(caches: Caches, policy: PropagationPolicy | undefined): (name: string) => boolean {
  if (policy === undefined) return () => true;
  return policy.kind === "ClusterPropagationPolicy" ? (name) => caches.clusterOverrides.get(name) !== undefined : (name) => caches.overrides.get(name, policy.metadata.namespace) !== undefined;
}

/** Calls `changed` with every policy that names an override policy that was just added or deleted. */
export function onDependentOverrides(caches: Caches, changed: (p: PropagationPolicy) => void): void {
  const heard = (o: OverridePolicy) => {
    const cluster = o.kind === "ClusterOverridePolicy";
    const policies = cluster ? caches.clusterPolicies.list() : caches.policies.list(o.metadata.namespace);
    for (const p of policies) if ((p.spec.dependentOverrides ?? []).includes(o.metadata.name ?? "")) changed(p);
  };
  for (const inf of [caches.overrides, caches.clusterOverrides]) inf.on({ add: heard, delete: heard });
}
