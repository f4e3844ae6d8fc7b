// The CronFederatedHPA shell over stand-in caches and a recording API.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CronFederatedHPA, ExecutionHistory } from "../../shared/api/autoscaling.ts";
import { RESOURCES } from "../../shared/api/resources.ts";
import type { KubeObject } from "../../shared/api/types.ts";
import type { KubeRest, ResourceInfo } from "../../shared/kube-rest.ts";
import { silentLogger } from "../../shared/logger.ts";
import type { Caches } from "../caches/caches.ts";
import type { TemplateInformers } from "../detector/template-informers.ts";
import { FakeInformer } from "../caches/fake-informer.fixtures.ts";
import type { Failure } from "../status/event-recorder.ts";
import { CronFederatedHpaController } from "./cron-controller.ts";

const NOW = Date.parse("2026-11-24T13:00:05Z");
const deployments: ResourceInfo = { apiVersion: "apps/v1", kind: "Deployment", plural: "deployments", namespaced: true };

function setup(target: CronFederatedHPA["spec"]["scaleTargetRef"], rule: CronFederatedHPA["spec"]["rules"][number], fail = false) {
  const crons = new FakeInformer<CronFederatedHPA>(RESOURCES.cronFederatedHPA);
  const writes: { path: string; body: unknown }[] = [];
  const rest = {
    mergePatch: async (path: string, body: unknown) => {
      if (fail && !path.endsWith("/status")) throw new Error("denied");
      writes.push({ path, body });
      return body;
    },
  } as unknown as KubeRest;
  const template: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "shop" }, spec: { replicas: 2 } };
  const templates = { get: () => template, resource: () => deployments } as unknown as TemplateInformers;
  const events: string[] = [];
  const recorder = { record: async (o: { kind: string; name: string }, e: Failure) => void events.push(`${o.kind}/${o.name} ${e.type ?? "Warning"} ${e.reason}: ${e.message}`) };
  const ctl = new CronFederatedHpaController({ caches: { cronFederatedHpas: crons } as unknown as Caches, templates, rest, log: silentLogger(), events: recorder, now: () => NOW });
  crons.put({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "CronFederatedHPA",
    metadata: { name: "c", namespace: "shop" },
    spec: { scaleTargetRef: target, rules: [rule] },
    status: { executionHistories: [{ ruleName: rule.name, nextExecutionTime: "2026-11-24T13:00:00.000Z" }] },
  });
  return { ctl, writes, events };
}
const history = (writes: { path: string; body: unknown }[]) => (writes.at(-1)?.body as { status: { executionHistories: ExecutionHistory[] } }).status.executionHistories[0];

describe("CronFederatedHpaController", () => {
  it("at a rule's time sets the workload's replicas through its scale subresource and records it", async () => {
    const { ctl, writes } = setup({ apiVersion: "apps/v1", kind: "Deployment", name: "web" }, { name: "up", schedule: "0 * * * *", targetReplicas: 6 });
    await ctl.controller.process("shop/c");
    assert.deepEqual(writes[0], { path: "/apis/apps/v1/namespaces/shop/deployments/web/scale", body: { spec: { replicas: 6 } } });
    const h = history(writes);
    assert.equal(h?.nextExecutionTime, "2026-11-24T14:00:00.000Z");
    assert.deepEqual(h?.successfulExecutions, [{ scheduleTime: "2026-11-24T13:00:00.000Z", executionTime: "2026-11-24T13:00:05.000Z", appliedReplicas: 6 }]);
  });

  it("sets a FederatedHPA's bounds; a failure is recorded with its message and nothing else is written", async () => {
    const fhpa = { apiVersion: "flotilla.dev/v1alpha1", kind: "FederatedHPA", name: "web" };
    const ok = setup(fhpa, { name: "night", schedule: "0 * * * *", targetMinReplicas: 1, targetMaxReplicas: 3 });
    await ok.ctl.controller.process("shop/c");
    assert.deepEqual(ok.writes[0], { path: "/apis/flotilla.dev/v1alpha1/namespaces/shop/federatedhpas/web", body: { spec: { minReplicas: 1, maxReplicas: 3 } } });
    assert.deepEqual(history(ok.writes)?.successfulExecutions?.[0], { scheduleTime: "2026-11-24T13:00:00.000Z", executionTime: "2026-11-24T13:00:05.000Z", appliedMinReplicas: 1, appliedMaxReplicas: 3 });
    const bad = setup(fhpa, { name: "night", schedule: "0 * * * *", targetMinReplicas: 1 }, true);
    await bad.ctl.controller.process("shop/c");
    assert.equal(bad.writes.length, 1, "only the status");
    assert.deepEqual(history(bad.writes)?.failedExecutions?.[0]?.message, "denied");
    assert.deepEqual(ok.events, [], "a rule that ran leaves no Event (as Karmada)");
    assert.deepEqual(bad.events, ["CronFederatedHPA/c Warning ScaleFailed: rule night: denied"]);
  });
});
