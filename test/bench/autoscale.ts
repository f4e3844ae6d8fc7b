// Benchmark of fleet autoscaling (issue 22): from a CPU load step in the members to the new
// replicas Running and Ready, Flotilla's FederatedHPA against each member's own HPA (the baseline,
// kube-controller-manager's autoscaling/v2 controller) given the same load. One fleet (control +
// 2 members running metrics-server; kwok fakes the pods and reports the CPU usage the bench sets
// per pod, test/env/usage.ts), started once, holds both side by side:
//   flotilla:   in the control cluster, a Divided Deployment `cpu` (2 replicas, 1 + 1, each pod
//               requesting 500m) and a FederatedHPA (min 2, max --max, cpu at 50% utilization);
//   member-hpa: in each member directly (no Flotilla), the same Deployment with 1 replica and an
//               autoscaling/v2 HPA with min 1, max --max/2, the same target: the same split.
// Each trial, after a random 0..--jitter ms pause, steps both workloads' per-pod usage at once
// from --low to --high percent of the request, and polls every --poll ms until, per side, every
// pod of the workload is Running and Ready and their number is --max (the headline), noting on the
// way when the metrics API first shows every pod above the target's tolerance, when the
// template's replicas reach --max (flotilla) and when the members' Deployments ask for --max in
// all. Then it steps the usage back to --low and times the way down to the minimum (scale-down
// stabilization windows set to 0 s on both sides, equally; scale-up keeps the defaults on both:
// window 0 s, max(+100 %, +4 pods) per 15 s), and waits until the metrics API shows the low load
// again. A random pause of 0..--jitter ms (default 30 s) comes before each step, up and down: a
// step otherwise follows the end of the last wait, which falls on some loop's beat, and the 10 s
// scrapes and 15 s loops line up every 30 s, so every step would land at the same phase of each
// (a first try with 2 s gave the same figures to 0.5 s in every trial).
// The loops' phases against each other are fixed when their processes start, so one fleet would
// measure one draw of them: the FederatedHPA path waits for an agent's 15 s poll and then for the
// controller's 15 s run, and how far apart those two fall stays the same all run (a first run
// found Flotilla 1.0-1.1 s ahead of the member HPAs in all 8 trials up and 6 of 8 down). So before each
// trial each agent is restarted at a random moment (its poll keeps the phase of its start), unless
// --fixed-phases; the fleet's cluster failure threshold is 60 s so a restart never makes a Cluster
// NotReady. The control plane, metrics-server and kube-controller-manager keep theirs.
// kwok counts the whole interval since its last reading at the current rate, so a step shows in
// full at the first scrape after it (0-10 s); a real kubelet's first sample would be a blend.
// Why --max defaults to 4: the usage is set per pod and stays put as pods are added, unlike a real
// load, which the new pods would share. 2 pods at 90% against 50% ask for ceil(2 × 1.8) = 4,
// which is what the same total load spread over 4 pods (45% each) would keep; a higher max makes
// both sides keep scaling on the unchanged per-pod figure until the max (4 pods at 90% ask for 8),
// which times two decisions instead of one.
// Both sides run at once on the same members (the same metrics-server scrapes, the same machine
// load); they share nothing else. Prints each trial, p50/p99/max per side, the ratio flotilla /
// member-hpa, and the median of each stage. Never fails on a time: exits non-zero only when
// something never happens within --timeout seconds, saying what.
//   node test/bench/autoscale.ts [--trials N] [--max N] [--low P] [--high P] [--jitter MS] [--fixed-phases] [--poll MS] [--timeout S] [--keep-logs]
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { SYNC_PERIOD_MS } from "../../control-plane/autoscaling-controller/federated-hpa-controller.ts";
import { KubeRest } from "../../shared/kube-rest.ts";
import { apply, kubectl } from "../e2e/helpers.ts";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { METRICS_RESOLUTION_SECONDS } from "../env/metrics-server.ts";
import { setWorkloadUsage } from "../env/usage.ts";
import { figures, type Milestones, milestoneLine, type PodJson, type PodMetricsJson, podCounts, ratios, stageMedians, utilizations } from "./autoscale-figures.ts";
import { keepFlotillaLogs } from "./keep-logs.ts";

const { values } = parseArgs({
  options: {
    trials: { type: "string", default: "8" },
    max: { type: "string", default: "4" },
    low: { type: "string", default: "10" },
    high: { type: "string", default: "90" },
    jitter: { type: "string", default: "30000" },
    poll: { type: "string", default: "500" },
    timeout: { type: "string", default: "300" },
    "fixed-phases": { type: "boolean", default: false },
    "keep-logs": { type: "boolean", default: false },
  },
});
const TRIALS = Number(values.trials);
const MAX = Number(values.max);
const LOW = Number(values.low);
const HIGH = Number(values.high);
const JITTER_MS = Number(values.jitter);
const POLL_MS = Number(values.poll);
const timeoutMs = Number(values.timeout) * 1000;
for (const [flag, v] of [["trials", TRIALS], ["max", MAX], ["low", LOW], ["high", HIGH], ["poll", POLL_MS], ["timeout", timeoutMs]] as const) {
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${flag} wants a positive integer`);
}
if (!Number.isInteger(JITTER_MS) || JITTER_MS < 0) throw new Error("--jitter wants a whole number of ms");

/** The agents' --metrics-interval (test/env passes none: the default). */
const AGENT_POLL_MS = 15_000;
const MEMBERS = 2;
const MIN = MEMBERS;
if (MAX <= MIN || MAX % MEMBERS !== 0) throw new Error(`--max wants a multiple of ${MEMBERS} above ${MIN} (each member's HPA gets max/${MEMBERS})`);
const TARGET = 50;
const TOLERANCE = 0.1;
if (!(LOW < TARGET * (1 - TOLERANCE) && HIGH > TARGET * (1 + TOLERANCE))) throw new Error(`--low must be under ${TARGET * (1 - TOLERANCE)} and --high over ${TARGET * (1 + TOLERANCE)} (the ${TARGET}% target's tolerance)`);
const REQUEST_CORES = 0.5;
const LABELS = { app: "cpu" };
const SELECTOR = "app=cpu";
const usageAt = (percent: number) => `${Math.round(REQUEST_CORES * 1000 * percent / 100)}m`;

const deployment = (ns: string, replicas: number) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "cpu", namespace: ns, labels: LABELS },
  spec: {
    replicas,
    selector: { matchLabels: LABELS },
    template: { metadata: { labels: LABELS }, spec: { containers: [{ name: "c", image: "busybox", resources: { requests: { cpu: `${REQUEST_CORES * 1000}m`, memory: "32Mi" } } }] } },
  },
});
const autoscalerSpec = (min: number, max: number) => ({
  scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "cpu" },
  minReplicas: min,
  maxReplicas: max,
  metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: TARGET } } }],
  // Scale-down only, equally on both sides, so a trial does not wait out the default 300 s.
  behavior: { scaleDown: { stabilizationWindowSeconds: 0 } },
});

/** One side of the comparison, as the bench drives and reads it. */
interface Side {
  name: "flotilla" | "member-hpa";
  namespace: string;
  /** The milestones of a scale-up, in order; the last is the headline. */
  order: string[];
  /** Reads each milestone's state: true once it is reached. */
  probes: Record<string, () => Promise<boolean>>;
  /** The workload at its minimum: replicas asked and pods Running and Ready. */
  atMin(): Promise<boolean>;
  /** Its autoscaler reads metrics (ScalingActive=True). */
  active(): Promise<boolean>;
  trials: Milestones[];
  down: number[];
}

interface Conditioned {
  status?: { conditions?: { type: string; status: string }[] };
}
const scalingActive = (o: Conditioned) => o.status?.conditions?.some((c) => c.type === "ScalingActive" && c.status === "True") === true;

let fleet: Fleet | undefined;
let flotilla: Flotilla | undefined;
const clients: KubeRest[] = [];
let failed = false;
try {
  const tStart = performance.now();
  fleet = await startFleet({ members: MEMBERS, metrics: true });
  flotilla = await startFlotilla(fleet, { logLevel: "warn", clusterFailureThreshold: "60s" });
  const f = fleet;
  const fl = flotilla;
  console.log(`fleet: control + ${MEMBERS} members with metrics-server, Flotilla on it, up in ${((performance.now() - tStart) / 1000).toFixed(1)} s; logs in ${f.root}`);
  const control = new KubeRest(f.control.kubeConfig(), { maxSockets: 4 });
  const members = f.members.map((m) => new KubeRest(m.kubeConfig(), { maxSockets: 4 }));
  clients.push(control, ...members);

  const pods = async (ns: string) => {
    const counts = await Promise.all(members.map(async (m) => podCounts((await m.get<{ items: PodJson[] }>(`/api/v1/namespaces/${ns}/pods`, { labelSelector: SELECTOR })).items)));
    return { live: counts.reduce((s, c) => s + c.live, 0), ready: counts.reduce((s, c) => s + c.ready, 0) };
  };
  const allUp = (ns: string, n: number) => async () => {
    const c = await pods(ns);
    return c.live === n && c.ready === n;
  };
  const memberReplicas = async (ns: string) => {
    const ds = await Promise.all(members.map((m) => m.get<{ spec: { replicas: number } }>(`/apis/apps/v1/namespaces/${ns}/deployments/cpu`)));
    return ds.reduce((s, d) => s + d.spec.replicas, 0);
  };
  // Every member's metrics API lists the workload's pods, each above (or below) the threshold.
  const metricsAll = (ns: string, holds: (percent: number) => boolean) => async () => {
    const lists = await Promise.all(members.map((m) => m.get<{ items: PodMetricsJson[] }>(`/apis/metrics.k8s.io/v1beta1/namespaces/${ns}/pods`, { labelSelector: SELECTOR })));
    return lists.every((l) => l.items.length > 0 && utilizations(l.items, REQUEST_CORES).every(holds));
  };
  const above = (p: number) => p > TARGET * (1 + TOLERANCE);
  const below = (p: number) => p < TARGET * (1 - TOLERANCE);
  const sideOf = (name: Side["name"], namespace: string, order: string[], probes: Side["probes"], active: () => Promise<boolean>): Side => ({
    name,
    namespace,
    order,
    probes: { metrics: metricsAll(namespace, above), members: async () => (await memberReplicas(namespace)) === MAX, Running: allUp(namespace, MAX), ...probes },
    atMin: async () => (await memberReplicas(namespace)) === MIN && (await allUp(namespace, MIN)()),
    active,
    trials: [],
    down: [],
  });

  const fed = sideOf(
    "flotilla",
    "bench-fhpa",
    ["metrics", "template", "members", "Running"],
    { template: async () => (await control.get<{ spec: { replicas: number } }>("/apis/apps/v1/namespaces/bench-fhpa/deployments/cpu")).spec.replicas === MAX },
    async () => scalingActive(await control.get<Conditioned>("/apis/flotilla.dev/v1alpha1/namespaces/bench-fhpa/federatedhpas/cpu")),
  );
  const own = sideOf("member-hpa", "bench-hpa", ["metrics", "members", "Running"], {}, async () =>
    (await Promise.all(members.map((m) => m.get<Conditioned>("/apis/autoscaling/v2/namespaces/bench-hpa/horizontalpodautoscalers/cpu")))).every(scalingActive),
  );
  const sides = [fed, own];

  // Both sides' pods, in every member, at `percent` of their request; the order alternates by
  // trial so that neither side's kwok rule is always written first (the writes take milliseconds).
  const setLoad = async (percent: number, trial: number) => {
    const ordered = trial % 2 === 0 ? sides : [...sides].reverse();
    await Promise.all(f.members.map(async (m: Cluster) => {
      for (const s of ordered) await setWorkloadUsage(m.kubeConfig(), s.namespace, LABELS, { cpu: usageAt(percent) });
    }));
  };

  /** Polls the probes until each held once; resolves with the ms from t0 at which each was first seen. */
  const track = async (what: string, t0: number, probes: Record<string, () => Promise<boolean>>): Promise<Milestones> => {
    const at: Milestones = {};
    for (;;) {
      const pending = Object.keys(probes).filter((k) => at[k] === undefined);
      if (pending.length === 0) return at;
      const held = await Promise.all(pending.map((k) => (probes[k] as () => Promise<boolean>)().catch(() => false)));
      const now = performance.now() - t0;
      pending.forEach((k, i) => {
        if (held[i]) at[k] = now;
      });
      if (now > timeoutMs && pending.some((k, i) => !held[i])) throw new Error(`${what}: ${pending.filter((_, i) => !held[i]).join(", ")} not within ${timeoutMs / 1000} s`);
      await sleep(POLL_MS);
    }
  };
  const settle = (what: string, check: () => Promise<boolean>) => track(what, performance.now(), { [what]: check });

  // Setup: the low load first, so that neither autoscaler ever sees anything else before trial 1.
  await setLoad(LOW, 0);
  await kubectl(f.control, ["create", "namespace", fed.namespace]);
  await apply(f.control, JSON.stringify(deployment(fed.namespace, MIN)));
  await apply(
    f.control,
    JSON.stringify({
      apiVersion: "flotilla.dev/v1alpha1",
      kind: "PropagationPolicy",
      metadata: { name: "cpu", namespace: fed.namespace },
      spec: {
        resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "cpu" }],
        placement: { clusterAffinity: { clusterNames: f.members.map((m) => m.name) }, replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted" } },
      },
    }),
  );
  await apply(f.control, JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "FederatedHPA", metadata: { name: "cpu", namespace: fed.namespace }, spec: autoscalerSpec(MIN, MAX) }));
  for (const m of f.members) {
    await kubectl(m, ["create", "namespace", own.namespace]);
    await apply(m, JSON.stringify(deployment(own.namespace, MIN / MEMBERS)));
    await apply(m, JSON.stringify({ apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", metadata: { name: "cpu", namespace: own.namespace }, spec: autoscalerSpec(MIN / MEMBERS, MAX / MEMBERS) }));
  }
  for (const s of sides) {
    await settle(`${s.name}: ${MIN} pods Running and Ready`, s.atMin);
    await settle(`${s.name}: its autoscaler reads metrics (ScalingActive)`, s.active);
    await settle(`${s.name}: the metrics API shows every pod at the low load`, metricsAll(s.namespace, below));
  }
  console.log(
    `each trial: per-pod CPU ${LOW}% → ${HIGH}% of a ${REQUEST_CORES * 1000}m request against a ${TARGET}% target, ${MIN} → ${MAX} replicas; ` +
      `flotilla: one Divided Deployment + FederatedHPA ${MIN}..${MAX}; member-hpa: in each member a Deployment + HPA ${MIN / MEMBERS}..${MAX / MEMBERS}; both at once, polled every ${POLL_MS} ms; ${values["fixed-phases"] ? "agents never restarted (--fixed-phases)" : "each agent restarted at a random moment before each trial"}`,
  );

  // Each agent's metrics poll keeps the phase of its start: restarted at a random moment, it takes
  // a new one against the controller's loop, the scrapes and the member HPAs.
  const restartAgents = async (trial: number) => {
    await Promise.all(
      f.members.map(async (m) => {
        await sleep(Math.random() * AGENT_POLL_MS);
        await fl.stopAgent(m.name);
        await fl.startAgent(m.name);
      }),
    );
    await settle(`trial ${trial}: every agent streaming again`, async () => (await fl.controlPlaneMetrics()).flotilla_connected_agents === MEMBERS);
  };

  for (let trial = 1; trial <= TRIALS; trial++) {
    if (!values["fixed-phases"]) await restartAgents(trial);
    await sleep(Math.random() * JITTER_MS);
    const t0 = performance.now();
    await setLoad(HIGH, trial);
    const up = await Promise.all(sides.map((s) => track(`trial ${trial} ${s.name} scale-up`, t0, s.probes)));
    await sleep(Math.random() * JITTER_MS);
    const t1 = performance.now();
    await setLoad(LOW, trial);
    const down = await Promise.all(sides.map((s) => track(`trial ${trial} ${s.name} scale-down`, t1, { min: s.atMin })));
    sides.forEach((s, i) => {
      s.trials.push(up[i] as Milestones);
      s.down.push((down[i] as Milestones).min as number);
    });
    console.log(`trial ${trial}/${TRIALS}: ${sides.map((s) => `${s.name}: ${milestoneLine(s.trials.at(-1) as Milestones, s.order)}; down to ${MIN} ${((s.down.at(-1) as number) / 1000).toFixed(1)} s`).join(" | ")}`);
    for (const s of sides) await settle(`trial ${trial} ${s.name}: the metrics API shows the low load again`, metricsAll(s.namespace, below));
  }

  const headline = (s: Side) => s.trials.map((t) => t.Running as number);
  console.log("");
  console.log(`load step ${LOW}% → ${HIGH}% → the ${MAX} replicas Running and Ready in the members, over ${TRIALS} trials:`);
  for (const s of sides) console.log(`  ${s.name.padEnd(10)} ${figures(headline(s))}`);
  console.log(`  ratio flotilla / member-hpa: ${ratios(headline(fed), headline(own))}`);
  console.log(`where the time goes (median of each stage; the periods: metrics-server resolution ${METRICS_RESOLUTION_SECONDS} s, member HPA sync 15 s, agent --metrics-interval 15 s, FederatedHPA controller ${SYNC_PERIOD_MS / 1000} s):`);
  for (const s of sides) console.log(`  ${s.name.padEnd(10)} ${stageMedians(s.trials, s.order)}`);
  console.log(`load back to ${LOW}% → ${MIN} replicas (scale-down window 0 s on both sides):`);
  for (const s of sides) console.log(`  ${s.name.padEnd(10)} ${figures(s.down)}`);
  console.log(`  ratio flotilla / member-hpa: ${ratios(fed.down, own.down)}`);
} catch (err) {
  failed = true;
  console.error(err instanceof Error ? err.message : err);
  await keepFlotillaLogs(fleet, { clusters: true });
} finally {
  if (!failed && values["keep-logs"]) await keepFlotillaLogs(fleet, { clusters: true });
  for (const c of clients) c.close();
  await flotilla?.stop();
  await fleet?.stop();
}
process.exit(failed ? 1 : 0);
