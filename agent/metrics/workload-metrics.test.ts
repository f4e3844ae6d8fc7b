// The poll loop against a fake metrics source and pod cache, with an injected clock.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { metricsWanted, reportOf } from "../../shared/workload-metrics-wire.ts";
import { FakeClock } from "../../shared/clock.ts";
import type { WantedMetric } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { silentLogger } from "../../shared/logger.ts";
import type { MetricsSource, Read } from "./metrics-source.ts";
import { selectorString } from "./metrics-source.ts";
import type { PodSample, SummaryPod } from "./metrics-summary.ts";
import { WorkloadMetricsPoller } from "./workload-metrics.ts";

const WEB = "apps/v1/Deployment/shop/web";
const pod = (name: string, app: string): SummaryPod => ({
  metadata: { name, labels: { app } },
  spec: { containers: [{ name: "app", resources: { requests: { memory: "100Mi" } } }] },
  status: { phase: "Running", startTime: "1970-01-01T00:00:00Z", conditions: [{ type: "Ready", status: "True", lastTransitionTime: "1970-01-01T00:00:00Z" }] },
});
const metric = (o: Partial<WantedMetric>): WantedMetric => ({ key: "memory", type: "Resource", resource: "memory", container: "", metricName: "", metricSelector: undefined, describedObject: undefined, ...o });
const wanted = (metrics: WantedMetric[]) =>
  metricsWanted([{ workload: { apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name: "web" }, podSelector: { matchLabels: { app: "web" }, matchExpressions: [] }, metrics }]);

/** A metrics source whose answers a test sets; it records what it was asked. */
class FakeSource implements MetricsSource {
  usage = "50Mi";
  podMetricsProblem: string | undefined;
  asked: string[] = [];
  async podMetrics(namespace: string, selector: string): Promise<Read<Map<string, PodSample>>> {
    this.asked.push(`pods ${namespace} ${selector}`);
    if (this.podMetricsProblem !== undefined) return { ok: false, problem: this.podMetricsProblem };
    const s = (at: number): PodSample => ({ timestampMs: at, windowMs: 15_000, containers: [{ name: "app", usage: { memory: this.usage, cpu: "250m" } }] });
    return { ok: true, value: new Map([["web-1", s(Date.now())], ["web-2", s(Date.now())], ["api-1", s(Date.now())]]) };
  }
  async podsMetric(): Promise<Read<Map<string, bigint>>> {
    return { ok: false, problem: "custom.metrics.k8s.io is not served" };
  }
  async objectMetric(): Promise<Read<bigint>> {
    return { ok: false, problem: "custom.metrics.k8s.io is not served" };
  }
  async externalMetric(_ns: string, metric: string, selector: string): Promise<Read<bigint>> {
    this.asked.push(`external ${metric} ${selector}`);
    return { ok: true, value: 2500n };
  }
}

function setup() {
  const clock = new FakeClock();
  const source = new FakeSource();
  const changed: string[] = [];
  const poller = new WorkloadMetricsPoller({
    source,
    pods: (ns) => (ns === "shop" ? [pod("web-1", "web"), pod("web-2", "web"), pod("api-1", "api")] : []),
    intervalMs: 15_000,
    log: silentLogger(),
    changed: (k) => changed.push(k),
    clock,
  });
  return { clock, source, changed, poller };
}

describe("WorkloadMetricsPoller", () => {
  it("summarises each wanted workload's pods every interval and offers a summary only when it changed", async () => {
    const { clock, source, changed, poller } = setup();
    poller.want(wanted([metric({})]));
    assert.equal(poller.hash, wanted([metric({})]).contentHash, "the Hello states the list held");
    poller.start();
    await poller.poll();
    assert.deepEqual(changed, [WEB]);
    const first = poller.latest(WEB);
    assert.ok(first !== undefined);
    assert.deepEqual(reportOf(first).summary.resources?.memory, {
      readyPods: 2, readyUsage: 2n * 50n * 1024n * 1024n * 1000n, readyRequests: 2n * 100n * 1024n * 1024n * 1000n, unreadyPods: 0, unreadyRequests: 0n, missingPods: 0, missingRequests: 0n, podsWithoutRequest: 0,
    });
    assert.equal(first.pods, 2, "only the selector's pods");
    assert.deepEqual(source.asked, ["pods shop app=web"]);

    clock.advance(15_000);
    await poller.poll();
    assert.equal(poller.polls >= 2, true);
    assert.deepEqual(changed, [WEB], "the same figures: nothing offered");

    source.usage = "80Mi";
    clock.advance(15_000);
    await poller.poll();
    assert.deepEqual(changed, [WEB, WEB], "new figures: offered");

    // A steady load: the same figures are offered again every 30 s, so the control plane (60 s) never counts it missing.
    clock.advance(15_000);
    await poller.poll();
    assert.deepEqual(changed, [WEB, WEB], "15 s after the last offer: nothing");
    clock.advance(15_000);
    await poller.poll();
    assert.deepEqual(changed, [WEB, WEB, WEB], "30 s after the last offer: offered again, unchanged");
    poller.stop();
    const polls = poller.polls;
    clock.advance(60_000);
    assert.equal(poller.polls, polls, "stopped: no more polls");
  });

  it("without metrics.k8s.io, a summary with every pod missing and the reason; the loop goes on", async () => {
    const { changed, poller, source } = setup();
    source.podMetricsProblem = "metrics.k8s.io: HTTP 503";
    poller.want(wanted([metric({})]));
    poller.start();
    await poller.poll();
    const m = poller.latest(WEB);
    assert.deepEqual([m?.resources[0]?.missingPods, m?.resources[0]?.readyPods], [2, 0]);
    assert.deepEqual(m?.problems, ["resource metrics: metrics.k8s.io: HTTP 503; every pod counts as missing"]);
    assert.deepEqual(changed, [WEB]);
    poller.stop();
  });

  it("reads External metrics with their selector, leaves out what is not served and says so", async () => {
    const { poller, source } = setup();
    const external = metric({ key: "queue", type: "External", resource: "", metricName: "queue", metricSelector: { matchLabels: { q: "jobs" }, matchExpressions: [] } });
    const object = metric({ key: "obj", type: "Object", resource: "", metricName: "hits", describedObject: { apiVersion: "v1", kind: "Service", namespace: "", name: "web" } });
    poller.want(wanted([external, object]));
    await poller.poll();
    const m = poller.latest(WEB);
    assert.deepEqual(m?.externalMetrics, [{ key: "queue", value: "2500" }]);
    assert.deepEqual(m?.objectMetrics, []);
    assert.deepEqual(m?.problems, ["Object metric hits: custom.metrics.k8s.io is not served; left out"]);
    assert.ok(source.asked.includes("external queue q=jobs"));
  });

  it("forgets the summary of a workload no longer wanted", async () => {
    const { poller } = setup();
    poller.want(wanted([metric({})]));
    await poller.poll();
    assert.deepEqual(poller.keys(), [WEB]);
    poller.want(metricsWanted([]));
    assert.deepEqual([poller.keys(), poller.latest(WEB), poller.hash], [[], undefined, ""]);
  });
});

describe("WorkloadMetricsPoller's CPU readiness timing (--horizontal-pod-autoscaler-cpu-initialization-period, …-initial-readiness-delay)", () => {
  // web-1 started at 0 and turned not Ready at 60 s; the poll is at 90 s.
  const notReady: SummaryPod = { ...pod("web-1", "web"), status: { phase: "Running", startTime: "1970-01-01T00:00:00Z", conditions: [{ type: "Ready", status: "False", lastTransitionTime: "1970-01-01T00:01:00Z" }] } };
  const cases: { name: string; readiness?: { cpuInitializationPeriodMs?: number; initialReadinessDelayMs?: number }; unready: number }[] = [
    { name: "the defaults (5 min, 30 s): within the period, a pod not Ready is set aside", unready: 1 },
    { name: "a 1 min period: past it, a pod that turned not Ready after the 30 s delay counts", readiness: { cpuInitializationPeriodMs: 60_000 }, unready: 0 },
    { name: "a 1 min period and a 2 min delay: it turned not Ready within the delay, so never was Ready: set aside", readiness: { cpuInitializationPeriodMs: 60_000, initialReadinessDelayMs: 120_000 }, unready: 1 },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const clock = new FakeClock();
      clock.advance(90_000);
      const poller = new WorkloadMetricsPoller({ source: new FakeSource(), pods: () => [notReady], intervalMs: 15_000, log: silentLogger(), changed: () => {}, clock, ...(c.readiness ? { readiness: c.readiness } : {}) });
      poller.want(wanted([metric({ key: "cpu", resource: "cpu" })]));
      await poller.poll();
      const cpu = reportOf(poller.latest(WEB) ?? assert.fail("no summary")).summary.resources?.cpu;
      assert.equal(cpu?.unreadyPods, c.unready);
      assert.equal(cpu?.readyPods, 1 - c.unready);
    });
  }
});

it("selectorString writes a label selector as the labelSelector parameter", () => {
  assert.equal(
    selectorString({ matchLabels: { app: "web" }, matchExpressions: [{ key: "tier", operator: "In", values: ["a", "b"] }, { key: "x", operator: "NotIn", values: ["c"] }, { key: "y", operator: "Exists" }, { key: "z", operator: "DoesNotExist" }] }),
    "app=web,tier in (a,b),x notin (c),y,!z",
  );
  assert.equal(selectorString(undefined), "");
});
