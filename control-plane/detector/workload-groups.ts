// Karmada v1.19's workloadAffinity groups, read from the caches: the clusters the other workloads
// of a group (templates of one namespace sharing a label value) are placed on. A walk over the
// namespace's bindings, asked only for a template whose policy has workloadAffinity.
import type { ResourceBinding } from "../../shared/api/types.ts";
import type { WorkRef } from "../../shared/work-key.ts";
import type { Caches } from "../caches/caches.ts";
import type { GroupPeers } from "../scheduling/workload-affinity.ts";
import type { TemplateInformers } from "./template-informers.ts";

export function groupPeers(caches: Caches, templates: TemplateInformers, self: WorkRef): GroupPeers {
  const same = (b: ResourceBinding) => b.spec.resource.kind === self.kind && b.spec.resource.name === self.name && b.spec.resource.apiVersion === self.apiVersion;
  return (key, value) => {
    const clusters = new Set<string>();
    for (const b of caches.bindings.list(self.namespace)) {
      if (same(b) || b.metadata.deletionTimestamp !== undefined) continue;
      const t = templates.get({ apiVersion: b.spec.resource.apiVersion, kind: b.spec.resource.kind, ...(b.spec.resource.namespace ? { namespace: b.spec.resource.namespace } : {}), name: b.spec.resource.name });
      if (t?.metadata.labels?.[key] === value) for (const c of b.spec.clusters) clusters.add(c.name);
    }
    return clusters;
  };
}
