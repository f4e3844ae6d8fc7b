import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CronFederatedHPA, CronFederatedHPARule, ExecutionHistory } from "../../shared/api/autoscaling.ts";
import { dueActions, executionHistories, nextWake } from "./cron-rules.ts";

const cron = (rules: CronFederatedHPARule[], histories?: ExecutionHistory[]): CronFederatedHPA => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "CronFederatedHPA",
  metadata: { name: "c", namespace: "shop" },
  spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, rules },
  ...(histories ? { status: { executionHistories: histories } } : {}),
});
const at = (iso: string) => new Date(iso);
const everyHour: CronFederatedHPARule = { name: "up", schedule: "0 * * * *", targetReplicas: 6 };

describe("CronFederatedHPA rules", () => {
  it("a new rule gets its next time and does not run at once", () => {
    const c = cron([everyHour]);
    assert.deepEqual(dueActions(c, at("2026-11-24T12:30:00Z"), false), []);
    assert.deepEqual(executionHistories(c, at("2026-11-24T12:30:00Z"), []), [{ ruleName: "up", nextExecutionTime: "2026-11-24T13:00:00.000Z" }]);
  });

  it("runs once its time has passed (once, however late), records the success, and moves to the next time", () => {
    const c = cron([everyHour], [{ ruleName: "up", nextExecutionTime: "2026-11-24T13:00:00.000Z" }]);
    assert.deepEqual(dueActions(c, at("2026-11-24T12:59:59Z"), false), []);
    const late = at("2026-11-24T15:10:00Z");
    assert.deepEqual(dueActions(c, late, false), [{ rule: "up", scheduleTime: "2026-11-24T13:00:00.000Z", kind: "replicas", replicas: 6 }]);
    const h = executionHistories(c, late, [{ rule: "up", scheduleTime: "2026-11-24T13:00:00.000Z", ok: true, applied: { replicas: 6 } }]);
    assert.deepEqual(h, [{ ruleName: "up", nextExecutionTime: "2026-11-24T16:00:00.000Z", successfulExecutions: [{ scheduleTime: "2026-11-24T13:00:00.000Z", executionTime: "2026-11-24T15:10:00.000Z", appliedReplicas: 6 }] }]);
  });

  it("keeps the newest executions within each rule's limits, failures apart", () => {
    const old = (n: number) => ({ scheduleTime: `2026-11-2${n}T13:00:00.000Z`, executionTime: `2026-11-2${n}T13:00:01.000Z`, appliedReplicas: 6 });
    const c = cron([{ ...everyHour, successfulHistoryLimit: 2, failedHistoryLimit: 1 }], [{ ruleName: "up", nextExecutionTime: "2026-11-24T13:00:00.000Z", successfulExecutions: [old(3), old(2)], failedExecutions: [{ scheduleTime: "x", executionTime: "x", message: "old" }] }]);
    const now = at("2026-11-24T13:00:02Z");
    const ok = executionHistories(c, now, [{ rule: "up", scheduleTime: "2026-11-24T13:00:00.000Z", ok: true, applied: { replicas: 6 } }])[0];
    assert.deepEqual(ok?.successfulExecutions?.map((e) => e.scheduleTime), ["2026-11-24T13:00:00.000Z", "2026-11-23T13:00:00.000Z"]);
    const failed = executionHistories(c, now, [{ rule: "up", scheduleTime: "2026-11-24T13:00:00.000Z", ok: false, message: "deployments.apps \"web\" not found" }])[0];
    assert.deepEqual(failed?.failedExecutions, [{ scheduleTime: "2026-11-24T13:00:00.000Z", executionTime: "2026-11-24T13:00:02.000Z", message: "deployments.apps \"web\" not found" }]);
  });

  it("a suspended rule neither runs nor has a next time; a rule whose schedule was edited does not fire at the old time", () => {
    const h = [{ ruleName: "up", nextExecutionTime: "2026-11-24T13:00:00.000Z" }];
    const suspended = cron([{ ...everyHour, suspend: true }], h);
    assert.deepEqual(dueActions(suspended, at("2026-11-24T13:05:00Z"), false), []);
    assert.deepEqual(executionHistories(suspended, at("2026-11-24T13:05:00Z"), []), [{ ruleName: "up" }]);
    const edited = cron([{ ...everyHour, schedule: "30 * * * *" }], h);
    assert.deepEqual(dueActions(edited, at("2026-11-24T13:05:00Z"), false), []);
    assert.equal(executionHistories(edited, at("2026-11-24T13:05:00Z"), [])[0]?.nextExecutionTime, "2026-11-24T13:30:00.000Z");
  });

  it("a rule for a FederatedHPA sets its bounds; a time zone moves the time; histories of removed rules go; the next wake is the earliest", () => {
    const rules: CronFederatedHPARule[] = [{ name: "night", schedule: "0 22 * * *", targetMinReplicas: 1, targetMaxReplicas: 3, timeZone: "Europe/Berlin" }];
    const c = cron(rules, [{ ruleName: "night", nextExecutionTime: "2026-11-24T21:00:00.000Z" }, { ruleName: "gone", nextExecutionTime: "2026-11-24T21:00:00.000Z" }]);
    const now = at("2026-11-24T21:00:30Z");
    assert.deepEqual(dueActions(c, now, true), [{ rule: "night", scheduleTime: "2026-11-24T21:00:00.000Z", kind: "bounds", minReplicas: 1, maxReplicas: 3 }]);
    const h = executionHistories(c, now, []);
    assert.deepEqual(h.map((x) => [x.ruleName, x.nextExecutionTime]), [["night", "2026-11-25T21:00:00.000Z"]], "22:00 in Berlin (UTC+1 in November), the next day");
    assert.equal(nextWake(h, now), Date.parse("2026-11-25T21:00:00.000Z") - now.getTime());
  });

  it("a rule for a FederatedHPA with neither bound sets nothing (unstartableRules says why)", () => {
    const c = cron([{ name: "up", schedule: "0 22 * * *", targetReplicas: 4 }], [{ ruleName: "up", nextExecutionTime: "2026-11-24T22:00:00.000Z" }]);
    assert.deepEqual(dueActions(c, at("2026-11-24T22:00:30Z"), true), []);
  });
});
