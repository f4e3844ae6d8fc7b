import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AggregatedStatusItem } from "../../shared/api/types.ts";
import type { WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { type BindingRecord, removalReport, removalsConfirmed } from "./removal-confirmation.ts";

const waiting = (cluster: string): AggregatedStatusItem => ({ clusterName: cluster, applied: false, reason: "WaitingForRemoval", message: "waiting for the agent to remove it" });
const applied = (cluster: string): AggregatedStatusItem => ({ clusterName: cluster, applied: true });
const report = (over: Partial<WorkStatus> = {}): WorkStatus => ({ ...removalReport("k"), deleted: false, applied: true, ...over });
const binding = (over: Partial<BindingRecord>): BindingRecord => ({ key: "k", targets: [], deleting: false, entries: [], reports: new Map(), ...over });

describe("removalsConfirmed", () => {
  const cases: { name: string; holds: string[]; b: BindingRecord; confirmed: boolean }[] = [
    { name: "waiting for removal, the agent no longer holds it: confirmed", holds: [], b: binding({ targets: ["m2"], entries: [waiting("m1")] }), confirmed: true },
    { name: "waiting for removal, the agent still holds it: not yet", holds: ["k"], b: binding({ targets: ["m2"], entries: [waiting("m1")] }), confirmed: false },
    { name: "a deleting binding the cluster was a target of, recorded applied: confirmed", holds: [], b: binding({ targets: ["m1"], deleting: true, entries: [applied("m1")], reports: new Map([["m1", report()]]) }), confirmed: true },
    { name: "still a target (the agent will be sent it): nothing to confirm", holds: [], b: binding({ targets: ["m1"], entries: [applied("m1")], reports: new Map([["m1", report()]]) }), confirmed: false },
    { name: "already confirmed by the agent's report", holds: [], b: binding({ entries: [waiting("m1")], reports: new Map([["m1", report({ deleted: true })]]) }), confirmed: false },
    { name: "no record the cluster ever held it", holds: [], b: binding({ targets: ["m2"], entries: [applied("m2")] }), confirmed: false },
    { name: "another cluster waiting says nothing about this one", holds: [], b: binding({ targets: [], entries: [waiting("m2")] }), confirmed: false },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(removalsConfirmed("m1", new Set(c.holds), [c.b]), c.confirmed ? ["k"] : []));
  }

  it("the record it makes reads as the agent's own confirmation", () => {
    assert.deepEqual(removalReport("a/b"), { workKey: "a/b", observedHash: "", applied: false, available: false, reason: "", message: "", manifests: [], deleted: true });
  });
});
