// One template's Works for its target clusters: render once per replica count, override per
// cluster, hash and serialise. Pure; the Work cache and the benchmark both run it.
import type { Cluster, KubeObject, OverridePolicy, TargetCluster } from "../../shared/api/types.ts";
import { contentHash } from "../../shared/content-hash.ts";
import { applyOverrides, overridePolicyMatches } from "./overrides.ts";
import { renderWork } from "./render.ts";

/** A cluster's rendered Work, or why it could not be rendered. */
export type ClusterWork = { ok: true; hash: string; manifests: Buffer[] } | { ok: false; message: string };

/**
 * overridePolicies: every override policy; those that select the template apply, in DESIGN §4
 * order (applyOverrides keeps it). Clusters no override rule touches share one serialised copy
 * and one hash: a 100-cluster Duplicated template costs one render, not a hundred.
 */
export function renderClusterWorks(
  template: KubeObject,
  targets: TargetCluster[],
  clusterNamed: (name: string) => Cluster | undefined,
  overridePolicies: OverridePolicy[],
  conflictResolution: string,
): Map<string, ClusterWork> {
  const overrides = overridePolicies.filter((p) => overridePolicyMatches(p, template));
  const shared = new Map<number | undefined, { manifests: KubeObject[]; work: ClusterWork }>();
  const out = new Map<string, ClusterWork>();
  for (const target of targets) {
    let base = shared.get(target.replicas);
    if (base === undefined) {
      const r = renderWork(template, { replicas: target.replicas });
      base = { manifests: r.manifests, work: serialise(r.manifests, conflictResolution) };
      shared.set(target.replicas, base);
    }
    const cluster = clusterNamed(target.name);
    if (overrides.length === 0 || cluster === undefined) {
      out.set(target.name, base.work);
      continue;
    }
    const result = applyOverrides(base.manifests[0] as KubeObject, cluster, overrides);
    if (!result.ok) out.set(target.name, { ok: false, message: result.message });
    else out.set(target.name, result.applied.length === 0 ? base.work : serialise([result.object], conflictResolution));
  }
  return out;
}

function serialise(manifests: KubeObject[], conflictResolution: string): ClusterWork {
  return { ok: true, hash: contentHash([manifests, conflictResolution]), manifests: manifests.map((m) => Buffer.from(JSON.stringify(m))) };
}
