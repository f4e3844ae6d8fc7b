// One template's Works for its target clusters: render once per replica count, override per
// cluster, hash and serialise. Pure; the Work cache and the benchmark both run it.
import type { Cluster, KubeObject, OverridePolicy, Placement, TargetCluster } from "../../shared/api/types.ts";
import { contentHash } from "../../shared/content-hash.ts";
import { InterpreterError, type KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import { jobCompletionsFor } from "../../shared/interpreter/native/adapter.ts";
import { applyOverrides, overridePolicyMatches } from "./overrides.ts";
import { type RenderedWork, renderWork } from "./render.ts";
import { withPreservedLabels } from "./preserved-labels.ts";

/** A cluster's rendered Work, or why it could not be rendered. */
export type ClusterWork = { ok: true; hash: string; manifests: Buffer[] } | { ok: false; message: string };

/**
 * overridePolicies: every override policy; those that select the template apply, in DESIGN §4
 * order (applyOverrides keeps it). Clusters no override rule touches share one serialised copy
 * and one hash: a 100-cluster Duplicated template costs one render, not a hundred. `divided`: the
 * placement divides replicas, so a Job's completions are divided with its parallelism (Karmada).
 * `interpreter`: the template kind's (default the native one). `preservedLabels`: a cluster's
 * labels from state preservation (preservedLabelsFor), added before its overrides.
 */
export function renderClusterWorks(
  template: KubeObject,
  targets: TargetCluster[],
  clusterNamed: (name: string) => Cluster | undefined,
  overridePolicies: OverridePolicy[],
  conflictResolution: string,
  divided = false,
  interpreter?: KindInterpreter,
  preservedLabels: (cluster: string) => Record<string, string> | undefined = () => undefined,
): Map<string, ClusterWork> {
  const overrides = overridePolicies.filter((p) => overridePolicyMatches(p, template));
  const shared = new Map<string, { manifests: KubeObject[]; work: ClusterWork }>();
  const out = new Map<string, ClusterWork>();
  const completions = divided ? jobCompletionsFor(template, targets.map((t) => ({ name: t.name, replicas: t.replicas ?? 0 }))) : undefined;
  for (const target of targets) {
    const share = completions?.get(target.name);
    const shareKey = `${target.replicas ?? "-"}/${share ?? "-"}`;
    let base = shared.get(shareKey);
    if (base === undefined) {
      let r: RenderedWork;
      try {
        r = renderWork(template, { replicas: target.replicas, ...(share === undefined ? {} : { completions: share }), ...(interpreter === undefined ? {} : { interpreter }) });
      } catch (err) {
        // A customization's ReviseReplica failed: that share's clusters keep their Works, and say why.
        if (!(err instanceof InterpreterError)) throw err;
        out.set(target.name, { ok: false, message: `InterpreterFailed: ${err.message}` });
        continue;
      }
      base = { manifests: r.manifests, work: serialise(r.manifests, conflictResolution) };
      shared.set(shareKey, base);
    }
    const cluster = clusterNamed(target.name);
    const labels = preservedLabels(target.name);
    const object = withPreservedLabels(base.manifests[0] as KubeObject, labels);
    if (overrides.length === 0 || cluster === undefined) {
      out.set(target.name, labels === undefined ? base.work : serialise([object], conflictResolution));
      continue;
    }
    const result = applyOverrides(object, cluster, overrides);
    if (!result.ok) out.set(target.name, { ok: false, message: result.message });
    else out.set(target.name, result.applied.length === 0 && labels === undefined ? base.work : serialise([result.object], conflictResolution));
  }
  return out;
}

/** Whether a placement divides the template's replicas among its clusters. */
export function dividedPlacement(placement: Placement | undefined): boolean {
  return placement?.replicaScheduling?.replicaSchedulingType === "Divided";
}

function serialise(manifests: KubeObject[], conflictResolution: string): ClusterWork {
  return { ok: true, hash: contentHash([manifests, conflictResolution]), manifests: manifests.map((m) => Buffer.from(JSON.stringify(m))) };
}
