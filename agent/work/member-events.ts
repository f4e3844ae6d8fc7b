// Which Works a member event that is not about their own objects concerns: a Service's ready
// endpoints, a pod that becomes Unschedulable or stops being so. Found through the watch caches of
// the objects the agent applied (their annotation names the Work); never a read.
import { WORK_KEY_ANNOTATION } from "../../shared/work-key.ts";
import type { ObjectWatch } from "../applied/object-watch.ts";
import { POD_WORKLOAD_KINDS, selectsPod } from "../status/unschedulable-pods.ts";

/** The Work that applied this Service, when the Service watch holds it. */
export function workOfService(objects: Pick<ObjectWatch, "cachedWorkKey">, namespace: string, service: string): string[] {
  const key = objects.cachedWorkKey("v1", "Service", namespace, service);
  return key === undefined ? [] : [key];
}

/** The Works whose applied workloads select a pod with these labels in this namespace. */
export function worksOfPod(objects: Pick<ObjectWatch, "cachedIn">, namespace: string, labels: Record<string, string> | undefined): string[] {
  const keys: string[] = [];
  for (const { apiVersion, kind } of POD_WORKLOAD_KINDS) {
    for (const o of objects.cachedIn(apiVersion, kind, namespace)) {
      const key = o.metadata.annotations?.[WORK_KEY_ANNOTATION];
      if (key !== undefined && selectsPod(o, labels)) keys.push(key);
    }
  }
  return keys;
}
