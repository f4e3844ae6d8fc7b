// The apply-time quota check of one template change (issue 26), over the shared caches: what the
// template would take (its replicas times one replica's requests, on as many clusters as its
// binding duplicates it to) against each FederatedResourceQuota of its namespace. The webhook
// (control-plane/webhook/) calls it; the decision is quota-admission.ts's.
import type { KubeObject, ResourceBinding } from "../../shared/api/types.ts";
import { replicasOf } from "../../shared/interpreter/native/adapter.ts";
import type { InterpreterRegistry } from "../../shared/interpreter/registry.ts";
import { isDeepStrictEqual } from "node:util";
import { bindingWorkloads, namespaceWorkloads, type UsageSources } from "./namespace-usage.ts";
import { quotaRefusal } from "./quota-admission.ts";
import type { Workload } from "./quota-usage.ts";

/** A template as it would be stored, and as it is (on an update). */
export interface TemplateChange {
  namespace: string;
  object: KubeObject;
  oldObject?: KubeObject;
}

/**
 * What a template would take once scheduled: its replicas on each cluster its binding duplicates
 * it to (one copy when it has no binding yet, or divides its replicas). Nothing for a kind
 * without replicas, or whose InterpretReplica fails (the binding reports that failure).
 */
export function templateWorkloads(obj: KubeObject, binding: ResourceBinding | undefined, interpreters: InterpreterRegistry): Workload[] {
  let r: ReturnType<typeof replicasOf>;
  try {
    r = replicasOf(obj, interpreters.for(obj));
  } catch {
    return [];
  }
  if (r === undefined) return [];
  const divided = binding?.spec.placement?.replicaScheduling?.replicaSchedulingType === "Divided";
  const copies = binding === undefined || divided ? 1 : Math.max(1, binding.spec.clusters.length);
  return [{ replicas: r.replicas * copies, requests: r.requires?.resourceRequest ?? {} }];
}

/** The refusal message, or undefined to allow (always, in a namespace without a FederatedResourceQuota). */
export function templateQuotaRefusal(src: UsageSources, change: TemplateChange): string | undefined {
  const quotas = src.caches.federatedResourceQuotas.list(change.namespace);
  if (quotas.length === 0) return undefined;
  const obj = change.object;
  const ref = { apiVersion: obj.apiVersion, kind: obj.kind, namespace: change.namespace, name: obj.metadata.name ?? "" };
  const binding = src.caches.bindingOf(ref);
  const after = templateWorkloads(obj, binding, src.interpreters);
  const old = change.oldObject === undefined ? [] : templateWorkloads(change.oldObject, binding, src.interpreters);
  // Nothing the quota counts changed (a label, an image): allowed, over quota or not.
  if (change.oldObject !== undefined && isDeepStrictEqual(after, old)) return undefined;
  const before = binding === undefined ? old : bindingWorkloads(binding, src.templates.get(ref) ?? change.oldObject, src.interpreters);
  const others = namespaceWorkloads(src, change.namespace, { except: ref });
  return quotaRefusal({ quotas, others, before, after }, `${obj.kind} ${ref.name}`);
}
