// Benchmark: scheduling + rendering throughput of the control plane's pure path (what the binding
// controller and the Work cache run per template), for T templates × K clusters, against a
// baseline that only serialises and hashes each template once per cluster. Prints figures and
// ratios; never fails on a time.
// Then the same path for the Divided half as a custom kind whose replicas a Lua customization
// reads and revises (ResourceInterpreterCustomization), against the native Deployment
// interpreter, in bindings/s (issue 21's goal: at least half the native rate).
//   node test/bench/schedule-render.ts [--templates 10000] [--clusters 100]
import { createHash } from "node:crypto";
import { parseArgs } from "node:util";
import type { Cluster, KubeObject, OverridePolicy, PropagationPolicy } from "../../shared/api/types.ts";
import { matchPolicy } from "../../control-plane/scheduling/policy-match.ts";
import { renderClusterWorks } from "../../control-plane/rendering/render-works.ts";
import { scheduleTemplate } from "../../control-plane/scheduling/schedule.ts";
import { type Work, WorkStore } from "../../control-plane/works/work-store.ts";
import type { KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import { LuaInterpreterRuntime } from "../../shared/interpreter/lua/runtime.ts";
import { NATIVE_INTERPRETERS } from "../../shared/interpreter/registry.ts";
import { mib } from "./rss.ts";

const { values } = parseArgs({ options: { templates: { type: "string", default: "10000" }, clusters: { type: "string", default: "100" } } });
const T = Number(values.templates);
const K = Number(values.clusters);
const regions = ["eu", "us", "ap"];

const clusters: Cluster[] = Array.from({ length: K }, (_, i) => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "Cluster",
  metadata: { name: `member${i + 1}`, labels: { region: regions[i % 3] as string, tier: String(i % 5) } },
  spec: { region: regions[i % 3] as string },
  status: {
    conditions: [{ type: "Ready", status: "True", reason: "", message: "", lastTransitionTime: "" }],
    resourceSummary: { allocatable: { cpu: "64", memory: "256Gi", pods: "1100" }, allocated: { cpu: String(i % 32), pods: "10" } },
  },
}));
const byName = new Map(clusters.map((c) => [c.metadata.name as string, c]));

const template = (i: number): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: `app-${i}`, namespace: `team-${i % 20}`, uid: `uid-${i}`, resourceVersion: String(1000 + i), labels: { app: `app-${i}`, divided: String(i % 2 === 0) } },
  spec: {
    replicas: 10 + (i % 7),
    selector: { matchLabels: { app: `app-${i}` } },
    template: {
      metadata: { labels: { app: `app-${i}` } },
      spec: { containers: [{ name: "web", image: `registry.example.com/team/app-${i}:1.${i % 10}`, resources: { requests: { cpu: "100m", memory: "128Mi" } }, env: [{ name: "MODE", value: "prod" }] }] },
    },
  },
});
const templates = Array.from({ length: T }, (_, i) => template(i));

// Half the templates are Duplicated everywhere, half Divided by weight (eu twice the others).
const policies: PropagationPolicy[] = [
  {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "ClusterPropagationPolicy",
    metadata: { name: "duplicated" },
    spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", labelSelector: { matchLabels: { divided: "false" } } }] },
  },
  {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "ClusterPropagationPolicy",
    metadata: { name: "divided" },
    spec: {
      resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", labelSelector: { matchLabels: { divided: "true" } } }],
      placement: {
        replicaScheduling: {
          replicaSchedulingType: "Divided",
          replicaDivisionPreference: "Weighted",
          weightPreference: { staticWeightList: [{ targetCluster: { labelSelector: { matchLabels: { region: "eu" } } }, weight: 2 }, { targetCluster: {}, weight: 1 }] },
        },
      },
    },
  },
];
// One cluster policy rewrites the image registry for the ap clusters.
const overridePolicies: OverridePolicy[] = [
  {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "ClusterOverridePolicy",
    metadata: { name: "ap-mirror" },
    spec: { overrideRules: [{ targetCluster: { fieldSelector: { matchExpressions: [{ key: "region", operator: "In", values: ["ap"] }] } }, overriders: { imageOverrider: [{ component: "Registry", operator: "replace", value: "ap-mirror.example.com" }] } }] },
  },
];

/** The control plane's path per template; `keep` receives each Work (the Work cache stores them). */
function flotillaRun(keep?: (cluster: string, work: Work) => void): { works: number; bindings: number; bytes: number } {
  let works = 0;
  let bytes = 0;
  for (const t of templates) {
    const match = matchPolicy(t, policies);
    if (match === undefined) continue;
    const schedule = scheduleTemplate(t, match.policy, clusters);
    const key = `apps/v1/Deployment/${t.metadata.namespace}/${t.metadata.name}`;
    for (const [cluster, w] of renderClusterWorks(t, schedule.targets, (n) => byName.get(n), overridePolicies, "Abort")) {
      if (!w.ok) throw new Error(w.message);
      works++;
      bytes += w.manifests[0]?.byteLength ?? 0;
      keep?.(cluster, { key, hash: w.hash, manifests: w.manifests, conflictResolution: "Abort" });
    }
  }
  return { works, bindings: T, bytes };
}

/** Baseline for memory: one serialised copy and hash per template per cluster, nothing shared. */
function naiveStoreRun(store: Map<string, { hash: string; manifest: Buffer }>): { works: number } {
  let works = 0;
  for (const t of templates) {
    for (const c of clusters) {
      const text = JSON.stringify(t);
      store.set(`${c.metadata.name}|${t.metadata.namespace}/${t.metadata.name}`, { hash: createHash("sha256").update(text).digest("hex"), manifest: Buffer.from(text) });
      works++;
    }
  }
  return { works };
}

/** Bytes held (heap + buffers) after a full GC. */
function retained(): number {
  global.gc?.();
  global.gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

function baselineRun(): { works: number } {
  let works = 0;
  for (const t of templates) {
    for (let k = 0; k < K; k++) {
      const text = JSON.stringify(t);
      createHash("sha256").update(text).digest("hex");
      Buffer.from(text);
      works++;
    }
  }
  return { works };
}

function measure<R>(fn: () => R): { result: R; ms: number; rssDelta: number; heapUsed: number } {
  global.gc?.();
  const before = process.memoryUsage().rss;
  const t0 = performance.now();
  const result = fn();
  const ms = performance.now() - t0;
  return { result, ms, rssDelta: process.memoryUsage().rss - before, heapUsed: process.memoryUsage().heapUsed };
}

console.log(`T=${T} templates × K=${K} clusters (half Duplicated, half Divided by weight; 1 image override on a third of the clusters)`);
const base = measure(baselineRun);
const flot = measure(() => flotillaRun());
const rate = (n: number, ms: number) => ((n / ms) * 1000).toFixed(0);
console.log(`baseline (serialise + hash each template per cluster): ${base.result.works} payloads in ${(base.ms / 1000).toFixed(2)} s = ${rate(base.result.works, base.ms)}/s`);
console.log(`flotilla (match + schedule + render + override + hash): ${flot.result.bindings} bindings, ${flot.result.works} works in ${(flot.ms / 1000).toFixed(2)} s = ${rate(flot.result.bindings, flot.ms)} bindings/s, ${rate(flot.result.works, flot.ms)} works/s`);
console.log(`ratio flotilla / baseline, time per work: ${(flot.ms / flot.result.works / (base.ms / base.result.works)).toFixed(2)}`);
console.log(`process RSS ${mib(process.memoryUsage().rss)}, heap used ${mib(flot.heapUsed)}; manifest bytes to send (shared buffers counted per cluster) ${mib(flot.result.bytes)}`);

if (global.gc === undefined) {
  console.log("memory: run with node --expose-gc for the Work store's retained size");
} else {
  const before = retained();
  const store = new WorkStore();
  const stored = flotillaRun((cluster, work) => store.set(cluster, work));
  const held = retained() - before;
  const naive = new Map<string, { hash: string; manifest: Buffer }>();
  const before2 = retained();
  naiveStoreRun(naive);
  const heldNaive = retained() - before2;
  console.log(`Work store: ${stored.works} works held in ${mib(held)} (${(held / stored.works).toFixed(0)} B/work); one unshared copy per template per cluster: ${mib(heldNaive)}; ratio ${(held / heldNaive).toFixed(2)}`);
  console.log(`process RSS with both held ${mib(process.memoryUsage().rss)}; store keeps ${store.clusters().length} clusters`);
}

// A custom kind taught by a customization (the replicas Deployment keeps natively) against the native Deployment.
const lua = new LuaInterpreterRuntime();
const widgetInterpreter = lua.interpreter({
  replicaResource: { luaScript: "function GetReplicas(obj)\n  return obj.spec.replicas, nil\nend" },
  replicaRevision: { luaScript: "function ReviseReplica(obj, desiredReplica)\n  obj.spec.replicas = desiredReplica\n  return obj\nend" },
});
const divided = policies[1] as PropagationPolicy;
const dividedTemplates = templates.filter((t) => t.metadata.labels?.divided === "true");
const widgets = dividedTemplates.map((t) => ({ ...t, apiVersion: "example.com/v1", kind: "Widget" }));
function interpretedRun(list: KubeObject[], interpreter: KindInterpreter | undefined): number {
  for (const t of list) {
    const schedule = scheduleTemplate(t, divided, clusters, [], interpreter);
    for (const [, w] of renderClusterWorks(t, schedule.targets, (n) => byName.get(n), overridePolicies, "Abort", true, interpreter)) if (!w.ok) throw new Error(w.message);
  }
  return list.length;
}
const nativeRun = measure(() => interpretedRun(dividedTemplates, NATIVE_INTERPRETERS.for(dividedTemplates[0] as KubeObject)));
const luaRun = measure(() => interpretedRun(widgets, widgetInterpreter));
console.log(
  `Divided, native Deployment interpreter: ${rate(nativeRun.result, nativeRun.ms)} bindings/s; a Lua-customized kind (GetReplicas + ReviseReplica scripts): ${rate(luaRun.result, luaRun.ms)} bindings/s; ratio lua / native ${(nativeRun.ms / luaRun.ms).toFixed(2)} (goal ≥ 0.5)`,
);
