import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FailoverBehavior, GracefulEvictionTask, PolicyPurgeMode, PurgeMode } from "../../shared/api/types.ts";
import { followApplicationPolicy } from "./application-failover.ts";
import { canonicalFailover, purgeModeOf } from "./purge-mode.ts";

describe("purgeModeOf: Karmada v1.18's deprecated names mean the new ones", () => {
  const cases: { mode: PolicyPurgeMode | undefined; want: PurgeMode | undefined }[] = [
    { mode: "Immediately", want: "Directly" },
    { mode: "Graciously", want: "Gracefully" },
    { mode: "Directly", want: "Directly" },
    { mode: "Gracefully", want: "Gracefully" },
    { mode: "Never", want: "Never" },
    { mode: undefined, want: undefined },
  ];
  for (const c of cases) it(`${c.mode ?? "unset"} → ${c.want ?? "unset"}`, () => assert.equal(purgeModeOf(c.mode), c.want));
});

describe("canonicalFailover: what a binding holds of its policy's failover", () => {
  const state = { rules: [{ aliasLabelName: "checkpoint", jsonPath: "{.checkpoint}" }] };
  const cases: { name: string; failover: FailoverBehavior; want: FailoverBehavior }[] = [
    {
      name: "application Immediately is Directly, the rest kept",
      failover: { application: { decisionConditions: { tolerationSeconds: 60 }, purgeMode: "Immediately", statePreservation: state } },
      want: { application: { decisionConditions: { tolerationSeconds: 60 }, purgeMode: "Directly", statePreservation: state } },
    },
    {
      name: "application Graciously is Gracefully, gracePeriodSeconds kept",
      failover: { application: { decisionConditions: {}, purgeMode: "Graciously", gracePeriodSeconds: 30 } },
      want: { application: { decisionConditions: {}, purgeMode: "Gracefully", gracePeriodSeconds: 30 } },
    },
    {
      name: "cluster Immediately and Graciously too",
      failover: { cluster: { purgeMode: "Graciously" }, application: { decisionConditions: {}, purgeMode: "Immediately" } },
      want: { cluster: { purgeMode: "Gracefully" }, application: { decisionConditions: {}, purgeMode: "Directly" } },
    },
    { name: "new names unchanged", failover: { cluster: { purgeMode: "Never" }, application: { decisionConditions: {}, purgeMode: "Gracefully" } }, want: { cluster: { purgeMode: "Never" }, application: { decisionConditions: {}, purgeMode: "Gracefully" } } },
    { name: "no purgeMode stays unset", failover: { cluster: {}, application: { decisionConditions: {} } }, want: { cluster: {}, application: { decisionConditions: {} } } },
    { name: "empty failover", failover: {}, want: {} },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(canonicalFailover(c.failover), c.want));
});

describe("a deprecated name acts as its new name: a Never task follows the policy", () => {
  const kept: GracefulEvictionTask = { fromCluster: "member1", reason: "ApplicationFailure", purgeMode: "Never", suppressDeletion: true, creationTimestamp: "2026-01-01T00:00:00Z" };
  const cases: { deprecated: PolicyPurgeMode; as: PurgeMode }[] = [
    { deprecated: "Immediately", as: "Directly" },
    { deprecated: "Graciously", as: "Gracefully" },
  ];
  for (const c of cases) {
    it(`${c.deprecated} as ${c.as}`, () => {
      const got = followApplicationPolicy(kept, { decisionConditions: {}, purgeMode: c.deprecated });
      assert.deepEqual(got, followApplicationPolicy(kept, { decisionConditions: {}, purgeMode: c.as }));
      assert.equal(got.purgeMode, c.as);
    });
  }
});
