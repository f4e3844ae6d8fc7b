// The controller's shell over stand-in caches and a recording API: what it writes, and when not.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FederatedHPA } from "../../shared/api/autoscaling.ts";
import { RESOURCES } from "../../shared/api/resources.ts";
import type { KubeObject, ResourceBinding } from "../../shared/api/types.ts";
import type { KubeRest, ResourceInfo } from "../../shared/kube-rest.ts";
import { silentLogger } from "../../shared/logger.ts";
import { resourceSums } from "../autoscaling/workload-metrics.fixtures.ts";
import type { Caches } from "../caches/caches.ts";
import type { TemplateInformers } from "../detector/template-informers.ts";
import { FakeInformer } from "../caches/fake-informer.fixtures.ts";
import { FederatedHpaController } from "./federated-hpa-controller.ts";
import type { Failure } from "../status/event-recorder.ts";
import { MetricsStore } from "./metrics-store.ts";

const NOW = Date.parse("2026-11-24T12:00:00Z");
const WORKLOAD = "apps/v1/Deployment/shop/web";
const deployments: ResourceInfo = { apiVersion: "apps/v1", kind: "Deployment", plural: "deployments", namespaced: true };

function setup(o: { scaleFails?: boolean; syncPeriodMs?: number } = {}) {
  const fhpas = new FakeInformer<FederatedHPA>(RESOURCES.federatedHPA);
  const template: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "shop" }, spec: { replicas: 4 }, ...{ status: { replicas: 4 } } };
  const binding = { spec: { clusters: [{ name: "m1", replicas: 2 }, { name: "m2", replicas: 2 }] } } as ResourceBinding;
  const writes: { path: string; body: unknown }[] = [];
  const rest = {
    mergePatch: async (path: string, body: unknown) => {
      if (o.scaleFails && path.endsWith("/scale")) throw new Error("the server is currently unable to handle the request");
      writes.push({ path, body });
      return body;
    },
  } as unknown as KubeRest;
  const caches = { federatedHpas: fhpas, bindingOf: () => binding } as unknown as Caches;
  const templates = { get: () => template, resource: () => deployments } as unknown as TemplateInformers;
  const metrics = new MetricsStore();
  const clock = { now: NOW };
  const events: string[] = [];
  const recorder = { record: async (o: { kind: string; name: string }, e: Failure) => void events.push(`${o.kind}/${o.name} ${e.type ?? "Warning"} ${e.reason}: ${e.message}`) };
  const ctl = new FederatedHpaController({ caches, templates, rest, metrics, log: silentLogger(), events: recorder, now: () => clock.now, ...(o.syncPeriodMs === undefined ? {} : { syncPeriodMs: o.syncPeriodMs }) });
  fhpas.put({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "FederatedHPA",
    metadata: { name: "web", namespace: "shop", generation: 1 },
    spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, minReplicas: 1, maxReplicas: 10, metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } } }] },
  });
  return { ctl, metrics, writes, fhpas, events, clock };
}

const hot = { pods: 2, readyPods: 2, resources: { cpu: resourceSums({ usage: [900, 900], request: 1000 }) } };

describe("FederatedHpaController", () => {
  it("scales the template through its scale subresource and writes the status; no metrics from a member keeps it from scaling down", async () => {
    const { ctl, metrics, writes } = setup();
    metrics.set("m1", WORKLOAD, hot, NOW);
    metrics.set("m2", WORKLOAD, hot, NOW);
    await ctl.controller.process("shop/web");
    assert.deepEqual(writes[0], { path: "/apis/apps/v1/namespaces/shop/deployments/web/scale", body: { spec: { replicas: 8 } } });
    const status = (writes[1]?.body as { status: FederatedHPA["status"] }).status;
    assert.equal(writes[1]?.path, "/apis/flotilla.dev/v1alpha1/namespaces/shop/federatedhpas/web/status");
    assert.equal(status?.desiredReplicas, 8);
    assert.equal(ctl.writes.scale, 1);
  });

  it("records SuccessfulRescale on the FederatedHPA with kube-controller-manager's words", async () => {
    const { ctl, metrics, events } = setup();
    metrics.set("m1", WORKLOAD, hot, NOW);
    metrics.set("m2", WORKLOAD, hot, NOW);
    await ctl.controller.process("shop/web");
    assert.deepEqual(events, ["FederatedHPA/web Normal SuccessfulRescale: New size: 8; reason: cpu resource utilization (percentage of request) above target"]);
  });

  it("a standing failure is recorded once, not on every run, and again after five minutes", async () => {
    const { ctl, events, clock } = setup();
    await ctl.controller.process("shop/web");
    const first = [...events];
    assert.deepEqual(first.map((e) => e.split(":")[0]), ["FederatedHPA/web Warning FailedGetResourceMetric", "FederatedHPA/web Warning FailedComputeMetricsReplicas"]);
    clock.now += 15_000;
    await ctl.controller.process("shop/web");
    assert.equal(events.length, 2, "the next run records nothing new");
    clock.now += 5 * 60_000;
    await ctl.controller.process("shop/web");
    assert.deepEqual(events.slice(2), first);
  });

  it("metrics older than the window are missing: with none, nothing is scaled", async () => {
    const { ctl, metrics, writes } = setup();
    metrics.set("m1", WORKLOAD, hot, NOW - 120_000);
    await ctl.controller.process("shop/web");
    assert.equal(writes.filter((w) => w.path.endsWith("/scale")).length, 0);
    const status = (writes.at(-1)?.body as { status: FederatedHPA["status"] }).status;
    assert.equal(status?.conditions?.find((c) => c.type === "ScalingActive")?.status, "False", JSON.stringify(status));
  });

  it("a failed scale write says FailedUpdateScale and keeps the last scale time", async () => {
    const { ctl, metrics, writes, events } = setup({ scaleFails: true });
    metrics.set("m1", WORKLOAD, hot, NOW);
    metrics.set("m2", WORKLOAD, hot, NOW);
    await ctl.controller.process("shop/web");
    const status = (writes.at(-1)?.body as { status: FederatedHPA["status"] }).status;
    const able = status?.conditions?.find((c) => c.type === "AbleToScale");
    assert.equal(able?.reason, "FailedUpdateScale");
    assert.match(able?.message ?? "", /unable to handle/);
    assert.equal(status?.lastScaleTime, undefined);
    assert.deepEqual(events, ["FederatedHPA/web Warning FailedRescale: New size: 8; reason: cpu resource utilization (percentage of request) above target; error: the server is currently unable to handle the request"]);
  });

  it("runs each FederatedHPA again one sync period later: 15 s by default, else --horizontal-pod-autoscaler-sync-period", async () => {
    for (const [syncPeriodMs, want] of [[undefined, 15_000], [1_000, 1_000]] as const) {
      const { ctl } = setup(syncPeriodMs === undefined ? {} : { syncPeriodMs });
      const requeued: [string, number][] = [];
      ctl.controller.queue.addAfter = (key, ms) => void requeued.push([key, ms]);
      await ctl.controller.process("shop/web");
      assert.deepEqual(requeued, [["shop/web", want]]);
    }
  });
});
