// What a policy's dependentOverrides and schedulePriority read, from the caches: whether the named
// override policies exist, a PriorityClass's value, a template's place in the queue; and the
// policies to look at again when one of those objects appears, changes or goes.
import type { OverridePolicy, PropagationPolicy, ResourceBinding } from "../../shared/api/types.ts";
import { WorkQueue } from "../../shared/work-queue.ts";
import { templateKeyOfBinding } from "../../shared/work-key.ts";
import type { Caches } from "../caches/caches.ts";

/** Whether an override policy of the policy's scope exists: its namespace's OverridePolicy, or a ClusterOverridePolicy. */
export function overrideLookup(caches: Caches, policy: PropagationPolicy | undefined): (name: string) => boolean {
  if (policy === undefined) return () => true;
  return policy.kind === "ClusterPropagationPolicy" ? (name) => caches.clusterOverrides.get(name) !== undefined : (name) => caches.overrides.get(name, policy.metadata.namespace) !== undefined;
}

/** A PriorityClass's value, undefined when there is no such class. */
export function priorityLookup(caches: Caches): (name: string) => number | undefined {
  return (name) => {
    const pc = caches.priorityClasses.get(name);
    return pc === undefined ? undefined : (pc.value ?? 0);
  };
}

/**
 * The binding controller's queue: a template waits by the priority its binding records
 * (spec.schedulePriority.priority, Karmada's), higher first. A template without a binding yet
 * waits at 0: its first schedule resolves its priority. The priorities are kept from the
 * bindings' events (only those not 0), so queueing a key reads no cache.
 */
export function priorityQueue(caches: Caches): WorkQueue {
  const priorities = new Map<string, number>();
  const heard = (b: ResourceBinding, gone: boolean) => {
    const priority = gone ? 0 : (b.spec.schedulePriority?.priority ?? 0);
    if (priority === 0) priorities.delete(templateKeyOfBinding(b));
    else priorities.set(templateKeyOfBinding(b), priority);
  };
  for (const inf of [caches.bindings, caches.clusterBindings]) inf.on({ add: (b) => heard(b, false), update: (b) => heard(b, false), delete: (b) => heard(b, true) });
  return new WorkQueue({ priorityOf: (key) => priorities.get(key) ?? 0 });
}

/** Calls `changed` with every policy whose dependentOverrides or schedulePriority names an object that was just added, changed or deleted. */
export function onPolicyInputs(caches: Caches, changed: (p: PropagationPolicy) => void): void {
  const override = (o: OverridePolicy) => {
    const cluster = o.kind === "ClusterOverridePolicy";
    const policies = cluster ? caches.clusterPolicies.list() : caches.policies.list(o.metadata.namespace);
    for (const p of policies) if ((p.spec.dependentOverrides ?? []).includes(o.metadata.name ?? "")) changed(p);
  };
  for (const inf of [caches.overrides, caches.clusterOverrides]) inf.on({ add: override, delete: override });
  const priorityClass = (pc: { metadata: { name?: string } }) => {
    for (const p of caches.allPolicies()) if (p.spec.schedulePriority?.priorityClassName === pc.metadata.name) changed(p);
  };
  caches.priorityClasses.on({ add: priorityClass, update: priorityClass, delete: priorityClass });
}
