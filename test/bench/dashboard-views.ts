// Benchmark of the dashboard's live views (issue 24), in process, no cluster: the cost of one
// change in the caches with many browsers open, against a baseline in which each browser asks for
// its own copy of the view (what per-browser polling of the control plane would cost, before any
// request reaches the apiserver). Both run on the same synthetic fleet with the real pure views
// (fleet-views.ts, template-views.ts) and the real LiveViews; the figures are medians over the
// rounds, with the ratio baseline ÷ live. Never fails on a time.
//   node test/bench/dashboard-views.ts [--clusters N] [--templates N] [--browsers N] [--rounds N]
import { parseArgs } from "node:util";
import type { Cluster, ResourceBinding } from "../../shared/api/types.ts";
import { clusterWorkloads, overview, templateRows } from "../../control-plane/dashboard/fleet-views.ts";
import { LiveViews } from "../../control-plane/dashboard/live-views.ts";
import { topology } from "../../control-plane/dashboard/template-views.ts";

const { values } = parseArgs({ options: { clusters: { type: "string", default: "100" }, templates: { type: "string", default: "2000" }, browsers: { type: "string", default: "200" }, rounds: { type: "string", default: "20" } } });
const C = Number(values.clusters);
const T = Number(values.templates);
const B = Number(values.browsers);
const ROUNDS = Number(values.rounds);

const clusters: Cluster[] = Array.from({ length: C }, (_, i) => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "Cluster",
  metadata: { name: `member${i}` },
  spec: { region: `r${i % 5}`, zone: `z${i % 15}` },
  status: { conditions: [{ type: "Ready", status: "True", reason: "ClusterReady", message: "", lastTransitionTime: "" }], agentVersion: "0.1.0", lastHeartbeatTime: new Date().toISOString(), nodeSummary: { totalNum: 3, readyNum: 3 }, resourceSummary: { allocatable: { cpu: "32", memory: "137438953472", pods: "330" }, allocated: { cpu: "4", memory: "8589934592", pods: "40" } } },
}));
const bindings: ResourceBinding[] = Array.from({ length: T }, (_, i) => {
  const targets = [0, 1, 2].map((k) => `member${(i + k * 7) % C}`);
  return {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "ResourceBinding",
    metadata: { name: `app${i}-deployment`, namespace: `ns${i % 20}`, labels: { "flotilla.dev/policy-name": "p", "flotilla.dev/policy-namespace": `ns${i % 20}` } },
    spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: `ns${i % 20}`, name: `app${i}` }, clusters: targets.map((name) => ({ name, replicas: 2 })) },
    status: { conditions: [{ type: "Scheduled", status: "True", reason: "Scheduled", message: "", lastTransitionTime: "" }], aggregatedStatus: targets.map((c) => ({ clusterName: c, applied: true, health: "Healthy" as const, observedHash: "0123456789abcdef" })) },
  };
});

const byKey = new Map(bindings.map((b) => [`${b.spec.resource.namespace}/${b.spec.resource.name}`, b]));
const compute = (view: string): unknown => {
  if (view === "overview") return overview({ clusters, bindings, events: [] });
  if (view === "templates") return templateRows(bindings, clusters);
  if (view === "clusters") return clusterWorkloads({ clusters, bindings });
  const b = byKey.get(view.slice("topology/".length));
  return b === undefined ? undefined : topology({ binding: b, clusters, workHash: () => "0123456789abcdef0123" });
};

/** Flips one cluster's readiness: a change every view shows. */
let flip = 0;
const change = () => {
  const c = clusters[flip++ % C];
  const ready = c?.status?.conditions?.[0];
  if (ready !== undefined) ready.status = ready.status === "True" ? "False" : "True";
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

// Browsers spread over the views as people would: most on the overview, some on templates,
// clusters, and topologies of a few templates.
const views = (i: number) => (i % 10 < 5 ? "overview" : i % 10 < 7 ? "templates" : i % 10 < 8 ? "clusters" : `topology/ns${i % 20}/app${i % 20}`);

let bytes = 0;
const live = new LiveViews({ compute, maxSubscribers: B });
for (let i = 0; i < B; i++) live.subscribe(views(i), { send: (d) => ((bytes += d.length), true) });

const liveMs: number[] = [];
const liveComputations: number[] = [];
const baselineMs: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  change();
  const before = live.computations;
  let t0 = process.hrtime.bigint();
  live.flush();
  liveMs.push(ms(t0));
  liveComputations.push(live.computations - before);
  // Baseline: every browser gets its own copy of its view, serialised, after the same change.
  change();
  t0 = process.hrtime.bigint();
  for (let i = 0; i < B; i++) bytes += JSON.stringify({ view: compute(views(i)) }).length;
  baselineMs.push(ms(t0));
}
live.stop();

const each: [string, number][] = ["overview", "templates", "clusters", "topology/ns1/app1"].map((v) => {
  const t: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = process.hrtime.bigint();
    JSON.stringify(compute(v));
    t.push(ms(t0));
  }
  return [v, median(t)];
});

console.log(`fleet: ${C} clusters, ${T} templates on 3 clusters each; ${B} browsers (half on the overview); ${ROUNDS} changes`);
for (const [v, t] of each) console.log(`  one ${v.split("/")[0]} view: ${t.toFixed(2)} ms to compute and serialise`);
console.log(`live views (one computation per distinct view): p50 ${median(liveMs).toFixed(1)} ms per change, ${median(liveComputations)} computations per change`);
console.log(`baseline (a copy per browser): p50 ${median(baselineMs).toFixed(1)} ms per change, ${B} computations per change`);
console.log(`ratio baseline ÷ live: ${(median(baselineMs) / Math.max(median(liveMs), 1e-6)).toFixed(1)}× the time, ${(B / Math.max(median(liveComputations), 1)).toFixed(1)}× the computations (${(bytes / 1e6).toFixed(1)} MB serialised in all)`);
