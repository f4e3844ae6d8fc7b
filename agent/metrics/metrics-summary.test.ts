import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { WantedMetric } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { CPU_INITIALIZATION_PERIOD_MS, INITIAL_READINESS_DELAY_MS, type PodSample, type SummaryInput, type SummaryPod, summarize } from "./metrics-summary.ts";

const T0 = Date.parse("2026-01-01T00:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString();
const WINDOW = 15_000;

/** A Running pod started at `start`, Ready (status, since `since`), one container "app" requesting 500m cpu and 100Mi memory. */
function pod(name: string, o: { phase?: string; ready?: string; since?: number; start?: number | null; deleting?: boolean; containers?: SummaryPod["spec"] } = {}): SummaryPod {
  const start = o.start === null ? undefined : (o.start ?? T0);
  return {
    metadata: { name, ...(o.deleting ? { deletionTimestamp: iso(T0) } : {}) },
    spec: o.containers ?? { containers: [{ name: "app", resources: { requests: { cpu: "500m", memory: "100Mi" } } }] },
    status: {
      phase: o.phase ?? "Running",
      ...(start === undefined ? {} : { startTime: iso(start) }),
      ...(o.ready === undefined ? {} : { conditions: [{ type: "Ready", status: o.ready, lastTransitionTime: iso(o.since ?? T0) }] }),
    },
  };
}

const sample = (at: number, usage: Record<string, Record<string, string>> = { app: { cpu: "200m", memory: "50Mi" } }): PodSample => ({
  timestampMs: at,
  windowMs: WINDOW,
  containers: Object.entries(usage).map(([name, u]) => ({ name, usage: u })),
});

const metric = (o: Partial<WantedMetric>): WantedMetric => ({ key: "cpu", type: "Resource", resource: "cpu", container: "", metricName: "", metricSelector: undefined, describedObject: undefined, ...o });
const cpu = metric({});

function run(pods: SummaryPod[], samples: Record<string, PodSample> | undefined, now: number, metrics: WantedMetric[] = [cpu], more: Partial<SummaryInput> = {}) {
  return summarize({ pods, metrics, podMetrics: samples === undefined ? undefined : new Map(Object.entries(samples)), podsValues: new Map(), values: new Map(), now, ...more });
}

/** [ready, unready, missing] pods of the cpu key. */
const groups = (out: ReturnType<typeof run>, key = "cpu") => {
  const r = out.summary.resources?.[key];
  return [r?.readyPods, r?.unreadyPods, r?.missingPods];
};

describe("summarize: kube-controller-manager's pod groups", () => {
  const late = T0 + CPU_INITIALIZATION_PERIOD_MS + 60_000;
  const cases: { name: string; pod: SummaryPod; sample?: PodSample; now: number; want: [number, number, number]; metric?: WantedMetric }[] = [
    { name: "a Ready pod past the initialization period with a sample is ready", pod: pod("a", { ready: "True" }), sample: sample(late), now: late, want: [1, 0, 0] },
    { name: "a Pending pod is unready, sample or not", pod: pod("a", { phase: "Pending", ready: "False" }), sample: sample(late), now: late, want: [0, 1, 0] },
    { name: "a Pending pod is unready for memory too", pod: pod("a", { phase: "Pending" }), now: late, want: [0, 1, 0], metric: metric({ key: "memory", resource: "memory" }) },
    { name: "a pod without a sample is missing, even not Ready", pod: pod("a", { ready: "False" }), now: late, want: [0, 0, 1] },
    { name: "cpu: no Ready condition is unready", pod: pod("a"), sample: sample(late), now: late, want: [0, 1, 0] },
    { name: "cpu: no start time is unready", pod: pod("a", { ready: "True", start: null }), sample: sample(late), now: late, want: [0, 1, 0] },
    { name: "memory: not Ready still counts (only Pending is unready)", pod: pod("a", { ready: "False" }), sample: sample(late), now: late, want: [1, 0, 0], metric: metric({ key: "memory", resource: "memory" }) },
    // Within the CPU initialization period.
    { name: "cpu, initializing: not Ready is unready", pod: pod("a", { ready: "False" }), sample: sample(T0 + 60_000), now: T0 + 60_000, want: [0, 1, 0] },
    { name: "cpu, initializing: Ready, sample one window after the change, ready", pod: pod("a", { ready: "True", since: T0 + 10_000 }), sample: sample(T0 + 10_000 + WINDOW), now: T0 + 60_000, want: [1, 0, 0] },
    { name: "cpu, initializing: Ready, sample a ms short of one window after the change, unready", pod: pod("a", { ready: "True", since: T0 + 10_000 }), sample: sample(T0 + 10_000 + WINDOW - 1), now: T0 + 60_000, want: [0, 1, 0] },
    { name: "cpu, initializing: Ready Unknown, sample well after, ready (only False is not Ready)", pod: pod("a", { ready: "Unknown", since: T0 }), sample: sample(T0 + 60_000), now: T0 + 60_000, want: [1, 0, 0] },
    // The period's boundary: start + period > now is within.
    { name: "cpu: 1 ms before the period ends, a stale sample is unready", pod: pod("a", { ready: "True", since: T0 + 200_000 }), sample: sample(T0 + 200_000), now: T0 + CPU_INITIALIZATION_PERIOD_MS - 1, want: [0, 1, 0] },
    { name: "cpu: when the period ends, the same sample counts", pod: pod("a", { ready: "True", since: T0 + 200_000 }), sample: sample(T0 + 200_000), now: T0 + CPU_INITIALIZATION_PERIOD_MS, want: [1, 0, 0] },
    // Past the period: not Ready and never Ready since the initial delay.
    { name: "cpu, past: not Ready since within the initial delay (never Ready) is unready", pod: pod("a", { ready: "False", since: T0 + 10_000 }), sample: sample(late), now: late, want: [0, 1, 0] },
    { name: "cpu, past: not Ready since exactly the initial delay counts (it was Ready once)", pod: pod("a", { ready: "False", since: T0 + INITIAL_READINESS_DELAY_MS }), sample: sample(late), now: late, want: [1, 0, 0] },
    { name: "cpu, past: not Ready since later (it was Ready) counts", pod: pod("a", { ready: "False", since: T0 + 120_000 }), sample: sample(late), now: late, want: [1, 0, 0] },
    // ContainerResource: the named container's sample.
    { name: "ContainerResource: a sample without the container is missing", pod: pod("a", { ready: "True" }), sample: sample(late, { sidecar: { cpu: "1" } }), now: late, want: [0, 0, 1], metric: metric({ key: "cpu@app", type: "ContainerResource", container: "app" }) },
    { name: "Resource: a sample whose container lacks the resource is missing", pod: pod("a", { ready: "True" }), sample: sample(late, { app: { memory: "1Mi" } }), now: late, want: [0, 0, 1] },
    { name: "Resource: a sample with no containers is missing", pod: pod("a", { ready: "True" }), sample: sample(late, {}), now: late, want: [0, 0, 1] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const m = c.metric ?? cpu;
      assert.deepEqual(groups(run([c.pod], c.sample === undefined ? {} : { a: c.sample }, c.now, [m]), m.key), c.want);
    });
  }

  it("leaves out pods being deleted and Failed pods; readyPods counts Running and Ready", () => {
    const out = run([pod("a", { ready: "True" }), pod("b", { ready: "True", deleting: true }), pod("c", { phase: "Failed" }), pod("d", { phase: "Pending" }), pod("e", { ready: "False" })], { a: sample(late), b: sample(late), c: sample(late) }, late);
    assert.deepEqual([out.summary.pods, out.summary.readyPods], [3, 1]);
    assert.deepEqual(groups(out), [1, 1, 1]);
  });
});

describe("summarize: usage and requests", () => {
  const late = T0 + CPU_INITIALIZATION_PERIOD_MS + 60_000;
  it("sums each group's requests and the ready pods' usage in milli-units, and the samples' window", () => {
    const out = run([pod("a", { ready: "True" }), pod("b", { ready: "True" }), pod("c", { phase: "Pending" }), pod("d", { ready: "True" })], { a: sample(late - 5000), b: sample(late, { app: { cpu: "1" } }) }, late);
    assert.deepEqual(out.summary.resources?.cpu, { readyPods: 2, readyUsage: 1200n, readyRequests: 1000n, unreadyPods: 1, unreadyRequests: 500n, missingPods: 1, missingRequests: 500n, podsWithoutRequest: 0 });
    assert.deepEqual([out.windowStartMs, out.windowEndMs], [late - 5000 - WINDOW, late]);
  });

  it("counts pods with a container that requests none; their other containers' requests still add", () => {
    const spec = { containers: [{ name: "app", resources: { requests: { cpu: "250m" } } }, { name: "sidecar" }] };
    const out = run([pod("a", { ready: "True", containers: spec }), pod("b", { ready: "True" })], { a: sample(late), b: sample(late) }, late);
    assert.deepEqual([out.summary.resources?.cpu?.podsWithoutRequest, out.summary.resources?.cpu?.readyRequests], [1, 750n]);
  });

  it("ContainerResource: the named container's usage and request only; a pod without the container requests 0 and lacks nothing", () => {
    const spec = { containers: [{ name: "app", resources: { requests: { cpu: "250m" } } }, { name: "sidecar" }] };
    const m = metric({ key: "cpu@app", type: "ContainerResource", container: "app" });
    const out = run([pod("a", { ready: "True", containers: spec })], { a: sample(late, { app: { cpu: "100m" }, sidecar: { cpu: "900m" } }) }, late, [m]);
    assert.deepEqual(out.summary.resources?.["cpu@app"], { readyPods: 1, readyUsage: 100n, readyRequests: 250n, unreadyPods: 0, unreadyRequests: 0n, missingPods: 0, missingRequests: 0n, podsWithoutRequest: 0 });
  });

  it("takes pod-level requests when set (and no container is named), else containers and restartable init containers", () => {
    const podLevel = { resources: { requests: { cpu: "2" } }, containers: [{ name: "app" }] };
    const sidecars = { containers: [{ name: "app", resources: { requests: { cpu: "500m" } } }], initContainers: [{ name: "proxy", restartPolicy: "Always", resources: { requests: { cpu: "100m" } } }, { name: "init", resources: { requests: { cpu: "5" } } }] };
    const out = run([pod("a", { ready: "True", containers: podLevel }), pod("b", { ready: "True", containers: sidecars })], { a: sample(late), b: sample(late) }, late);
    assert.deepEqual([out.summary.resources?.cpu?.readyRequests, out.summary.resources?.cpu?.podsWithoutRequest], [2000n + 600n, 0]);
  });

  it("without metrics.k8s.io every pod not Pending is missing, and there is no window", () => {
    const out = run([pod("a", { ready: "True" }), pod("b", { phase: "Pending" })], undefined, late);
    assert.deepEqual(groups(out), [0, 1, 1]);
    assert.deepEqual([out.windowStartMs, out.windowEndMs], [0, 0]);
  });
});

describe("summarize: Pods, Object and External metrics", () => {
  const rps = metric({ key: "rps", type: "Pods", resource: "", metricName: "rps" });
  it("splits a Pods metric's pods (only Pending is unready) and sums the ready pods' values", () => {
    const out = run([pod("a", { ready: "False" }), pod("b", { phase: "Pending" }), pod("c", { ready: "True" })], {}, T0, [rps], { podsValues: new Map([["rps", new Map([["a", 1500n], ["b", 7n]])]]) });
    assert.deepEqual(out.summary.podsMetrics?.rps, { readyPods: 1, readyValue: 1500n, unreadyPods: 1, missingPods: 1 });
  });

  it("a Pods metric that could not be read leaves every pod not Pending missing", () => {
    const out = run([pod("a", { ready: "True" })], {}, T0, [rps]);
    assert.deepEqual(out.summary.podsMetrics?.rps, { readyPods: 0, readyValue: 0n, unreadyPods: 0, missingPods: 1 });
  });

  it("reports the Object and External values read, and leaves out those not read", () => {
    const metrics = [metric({ key: "o", type: "Object" }), metric({ key: "e", type: "External" }), metric({ key: "gone", type: "External" })];
    const out = run([], {}, T0, metrics, { values: new Map([["o", 3000n], ["e", -2n]]) });
    assert.deepEqual(out.summary, { pods: 0, readyPods: 0, objectMetrics: { o: 3000n }, externalMetrics: { e: -2n } });
  });
});
