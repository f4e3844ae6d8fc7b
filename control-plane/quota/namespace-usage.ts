// What a namespace's bindings take (issue 26): each current binding's scheduled replicas (over its
// clusters, or on one) with what one replica requests, read from its template through the
// interpreter (a customization's InterpretReplica counts too). Reads the shared caches only.
import type { KubeObject, ResourceBinding } from "../../shared/api/types.ts";
import type { InterpreterRegistry } from "../../shared/interpreter/registry.ts";
import { replicasOf } from "../../shared/interpreter/native/adapter.ts";
import type { WorkRef } from "../../shared/work-key.ts";
import type { Caches } from "../caches/caches.ts";
import type { Workload } from "./quota-usage.ts";

/** What the usage is read from. */
export interface UsageSources {
  caches: Caches;
  templates: { get(ref: WorkRef): KubeObject | undefined };
  interpreters: InterpreterRegistry;
}

/** What one replica of a template requests (empty when its kind has no replicas or asks for nothing). */
export function requestsOf(template: KubeObject | undefined, interpreters: InterpreterRegistry): Record<string, string> {
  if (template === undefined) return {};
  try {
    return replicasOf(template, interpreters.for(template))?.requires?.resourceRequest ?? {};
  } catch {
    // A customization whose InterpretReplica fails: its binding says so; it counts as asking nothing here.
    return {};
  }
}

/**
 * The workloads of one binding, on one cluster or (cluster undefined) on all of them: Karmada's
 * CalculateResourceUsage. A multi-template workload (spec.components) takes each component's
 * replicas on each cluster; another takes its clusters' replicas. A copy kept only while it is
 * replaced elsewhere (a graceful eviction task's cluster) is not counted, and Divided replicas
 * moving (added first, then removed) count once, at most the template's: failover and moves are
 * readiness, never more use, and a quota never holds them back.
 */
export function bindingWorkloads(binding: ResourceBinding, template: KubeObject | undefined, interpreters: InterpreterRegistry, cluster?: string): Workload[] {
  const evicting = new Set((binding.spec.gracefulEvictionTasks ?? []).map((t) => t.fromCluster));
  const targets = binding.spec.clusters.filter((t) => !evicting.has(t.name) && (cluster === undefined || t.name === cluster));
  const components = binding.spec.components ?? [];
  if (components.length > 0) {
    return components.map((c) => ({ replicas: c.replicas * targets.length, requests: c.replicaRequirements?.resourceRequest ?? {} }));
  }
  let replicas = targets.reduce((n, t) => n + (t.replicas ?? 0), 0);
  const divided = binding.spec.placement?.replicaScheduling?.replicaSchedulingType === "Divided";
  if (divided && cluster === undefined && binding.spec.replicas !== undefined) replicas = Math.min(replicas, binding.spec.replicas);
  return replicas === 0 ? [] : [{ replicas, requests: requestsOf(template, interpreters) }];
}

/** The namespace's current bindings with their templates, but for the template `except` names. */
export function namespaceBindings(src: UsageSources, namespace: string, except?: WorkRef): { binding: ResourceBinding; template: KubeObject | undefined }[] {
  const out: { binding: ResourceBinding; template: KubeObject | undefined }[] = [];
  for (const b of src.caches.bindings.list(namespace)) {
    const ref = b.spec.resource;
    // A binding left under a legacy name (being moved) is not the template's: it would count twice.
    if (src.caches.bindingOf(ref) !== b || b.metadata.deletionTimestamp !== undefined) continue;
    if (except !== undefined && ref.apiVersion === except.apiVersion && ref.kind === except.kind && ref.name === except.name) continue;
    out.push({ binding: b, template: src.templates.get(ref) });
  }
  return out;
}

/** The workloads of the namespace's bindings (on one cluster, or on all). */
export function namespaceWorkloads(src: UsageSources, namespace: string, opts: { except?: WorkRef; cluster?: string } = {}): Workload[] {
  return namespaceBindings(src, namespace, opts.except).flatMap(({ binding, template }) => bindingWorkloads(binding, template, src.interpreters, opts.cluster));
}
