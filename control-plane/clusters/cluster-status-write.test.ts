import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ClusterStatus, Condition } from "../../shared/api/types.ts";
import { clusterStatusWrite } from "./cluster-status-write.ts";
import { outdatedCondition } from "./cluster-controller.ts";

const T0 = Date.parse("2026-01-01T00:00:00Z");
const at = (ms: number) => new Date(T0 + ms).toISOString();
const ready: Condition[] = [{ type: "Ready", status: "True", reason: "ClusterReady", message: "", lastTransitionTime: at(0) }];
const capacity = (cpu: string) => ({ allocatable: { cpu }, allocated: {} });

describe("clusterStatusWrite", () => {
  const cases: { name: string; before: ClusterStatus; desired: ClusterStatus; nowMs: number; want: "changed" | "report" | undefined }[] = [
    { name: "nothing changed", before: { conditions: ready }, desired: { conditions: ready }, nowMs: 0, want: undefined },
    { name: "a Cluster no agent reached: no capacity on either side", before: {}, desired: { conditions: ready }, nowMs: 0, want: "changed" },
    { name: "still no capacity and nothing else changed", before: { conditions: ready }, desired: { conditions: ready }, nowMs: 60_000, want: undefined },
    { name: "first capacity, no heartbeat written yet: reported at once", before: { conditions: ready }, desired: { conditions: ready, resourceSummary: capacity("4") }, nowMs: 0, want: "report" },
    { name: "Ready changes: at once", before: { conditions: ready, lastHeartbeatTime: at(0) }, desired: { conditions: [{ ...(ready[0] as Condition), status: "False" }], lastHeartbeatTime: at(0) }, nowMs: 1, want: "changed" },
    { name: "version changes: at once", before: { kubernetesVersion: "v1.35.0", lastHeartbeatTime: at(0) }, desired: { kubernetesVersion: "v1.36.0", lastHeartbeatTime: at(0) }, nowMs: 1, want: "changed" },
    { name: "nodes change: at once", before: { nodeSummary: { totalNum: 3, readyNum: 3 }, lastHeartbeatTime: at(0) }, desired: { nodeSummary: { totalNum: 3, readyNum: 2 }, lastHeartbeatTime: at(0) }, nowMs: 1, want: "changed" },
    { name: "API groups change: at once", before: { apiEnablements: [{ groupVersion: "v1" }], lastHeartbeatTime: at(0) }, desired: { apiEnablements: [{ groupVersion: "v1" }, { groupVersion: "apps/v1" }], lastHeartbeatTime: at(1_000) }, nowMs: 1_000, want: "changed" },
    { name: "another condition changes: at once", before: { conditions: ready, lastHeartbeatTime: at(0) }, desired: { conditions: [...ready, { type: "HeartbeatClaimsValid", status: "False", reason: "ClaimsLeftOut", message: "", lastTransitionTime: at(1_000) }], lastHeartbeatTime: at(0) }, nowMs: 1_000, want: "changed" },
    { name: "a heartbeat soon after the last written one waits", before: { lastHeartbeatTime: at(0) }, desired: { lastHeartbeatTime: at(1_000) }, nowMs: 1_000, want: undefined },
    { name: "a heartbeat once the interval has passed is written", before: { lastHeartbeatTime: at(0) }, desired: { lastHeartbeatTime: at(10_000) }, nowMs: 10_000, want: "report" },
    { name: "a heartbeat just short of the interval waits", before: { lastHeartbeatTime: at(0) }, desired: { lastHeartbeatTime: at(9_999) }, nowMs: 9_999, want: undefined },
    { name: "capacity moving soon after the last written heartbeat waits", before: { lastHeartbeatTime: at(0), resourceSummary: capacity("4") }, desired: { lastHeartbeatTime: at(0), resourceSummary: capacity("3") }, nowMs: 500, want: undefined },
    { name: "capacity moving after the interval is written", before: { lastHeartbeatTime: at(0), resourceSummary: capacity("4") }, desired: { lastHeartbeatTime: at(0), resourceSummary: capacity("3") }, nowMs: 10_000, want: "report" },
    { name: "capacity disappearing after the interval is written", before: { lastHeartbeatTime: at(0), resourceSummary: capacity("4") }, desired: { lastHeartbeatTime: at(0) }, nowMs: 10_000, want: "report" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(clusterStatusWrite(c.before, c.desired, T0 + c.nowMs, 10_000), c.want);
    });
  }
});

describe("outdatedCondition: AgentOutdated names what the agent lacks", () => {
  it("none missing: no condition; some: True, keeping its transition time", () => {
    assert.equal(outdatedCondition([], undefined, 0), undefined);
    const first = outdatedCondition(["durable-preserve"], undefined, Date.parse("2026-11-24T00:00:00Z"));
    assert.equal(first?.status, "True");
    assert.match(first?.message ?? "", /lacks durable-preserve/);
    const later = outdatedCondition(["durable-preserve"], first ? [first] : [], Date.parse("2026-11-24T01:00:00Z"));
    assert.equal(later?.lastTransitionTime, first?.lastTransitionTime);
  });
});
