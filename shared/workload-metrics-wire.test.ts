import assert from "node:assert/strict";
import { it } from "node:test";
import { kubeSelector, metricsWanted, reportOf, summaryToWire, wireSelector } from "./workload-metrics-wire.ts";
import type { WorkloadMetricsSummary } from "./autoscaling/workload-metrics.ts";

const ref = (name: string) => ({ apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name });

it("a summary survives the wire exactly, beyond 2^53 too", () => {
  const summary: WorkloadMetricsSummary = {
    pods: 3,
    readyPods: 2,
    resources: { "memory@app": { readyPods: 2, readyUsage: 2n ** 62n, readyRequests: 10n, unreadyPods: 1, unreadyRequests: 5n, missingPods: 0, missingRequests: 0n, podsWithoutRequest: 1 } },
    podsMetrics: { rps: { readyPods: 2, readyValue: 1500n, unreadyPods: 1, missingPods: 0 } },
    externalMetrics: { queue: -3n },
  };
  const wire = summaryToWire(summary, { workload: ref("web"), wantedHash: "h", windowStartMs: 1, windowEndMs: 2, problems: ["p"] });
  assert.equal(wire.resources[0]?.readyUsage, "4611686018427387904");
  const back = reportOf(wire);
  assert.deepEqual(back.summary, summary);
  assert.deepEqual([back.key, back.wantedHash, back.windowStartMs, back.windowEndMs, back.problems], ["apps/v1/Deployment/shop/web", "h", 1, 2, ["p"]]);
});

it("the wanted list's hash does not depend on the order it was given in; the empty list's is empty", () => {
  const w = (name: string) => ({ workload: ref(name), podSelector: wireSelector({ matchLabels: { app: name } }), metrics: [] });
  assert.equal(metricsWanted([w("a"), w("b")]).contentHash, metricsWanted([w("b"), w("a")]).contentHash);
  assert.notEqual(metricsWanted([w("a")]).contentHash, metricsWanted([w("b")]).contentHash);
  assert.equal(metricsWanted([]).contentHash, "");
});

it("a selector goes to the wire and back as Kubernetes writes it", () => {
  const s = { matchLabels: { app: "web" }, matchExpressions: [{ key: "tier", operator: "In" as const, values: ["a", "b"] }] };
  assert.deepEqual(kubeSelector(wireSelector(s)), s);
  assert.deepEqual(kubeSelector(wireSelector({})), {});
  assert.equal(kubeSelector(undefined), undefined);
});
