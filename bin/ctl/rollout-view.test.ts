import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RolloutResponse } from "../../shared/gen/flotilla/v1alpha1/admin.ts";
import { rolloutChangeLine, rolloutHeader, rolloutTable } from "./rollout-view.ts";

const NOW = Date.parse("2026-11-24T10:05:00Z");
const R2 = "2222222222222222aaaaaaaaaaaaaaaa";
const R1 = "1111111111111111bbbbbbbbbbbbbbbb";
const template = { apiVersion: "apps/v1", kind: "Deployment", namespace: "adm", name: "web" };
const waiting: RolloutResponse = {
  template,
  phase: "WaitingForApproval",
  revision: R2,
  stableRevision: R1,
  message: "",
  waitingFor: "AfterGroup/canary",
  paused: false,
  approvals: [],
  groups: [
    { name: "canary", approval: "AfterGroup", clusters: [{ name: "member1", revision: R2, phase: "Succeeded", since: "2026-11-24T10:02:00Z", message: "" }] },
    {
      name: "rest",
      approval: "None",
      clusters: [
        { name: "member2", revision: R1, phase: "Waiting", since: "2026-11-24T10:00:00Z", message: "" },
        { name: "member3", revision: R2, phase: "Failed", since: "2026-11-24T10:04:30Z", message: "UpdateFailed: quota exceeded" },
      ],
    },
  ],
  change: "",
};

describe("flotillactl rollout status", () => {
  it("prints the rollout's line, then each cluster in rollout order", () => {
    assert.equal(
      rolloutTable(waiting, NOW),
      [
        "Deployment adm/web: revision 222222222222 (stable 111111111111), WaitingForApproval, waiting for AfterGroup/canary",
        "GROUP    CLUSTER   REVISION       PHASE       SINCE   MESSAGE",
        "canary   member1   222222222222   Succeeded   3m      -",
        "rest     member2   111111111111   Waiting     5m      -",
        "rest     member3   222222222222   Failed      30s     UpdateFailed: quota exceeded",
      ].join("\n"),
    );
  });
  const headers: [string, Partial<RolloutResponse>, string][] = [
    ["a paused rollout with the user's message", { phase: "Paused", paused: true, waitingFor: "", message: "paused by a user: flotillactl rollout resume" }, "Deployment adm/web: revision 222222222222 (stable 111111111111), Paused: paused by a user: flotillactl rollout resume"],
    ["a rollback paused by a user", { phase: "RollingBack", paused: true, waitingFor: "", message: "" }, "Deployment adm/web: revision 222222222222 (stable 111111111111), RollingBack, paused"],
    ["a finished rollout", { phase: "Succeeded", revision: R1, waitingFor: "" }, "Deployment adm/web: revision 111111111111 (stable 111111111111), Succeeded"],
    ["no state yet: the server's explanation", { phase: "", revision: "", stableRevision: "", waitingFor: "", message: "no rollout state yet: the rollout controller records one when it first sees Deployment adm/web's revision" }, "Deployment adm/web: no rollout state yet: the rollout controller records one when it first sees Deployment adm/web's revision"],
    ["a cluster-scoped template", { template: { apiVersion: "v1", kind: "Namespace", namespace: "", name: "team" }, phase: "Succeeded", waitingFor: "" }, "Namespace team: revision 222222222222 (stable 111111111111), Succeeded"],
  ];
  for (const [name, patch, want] of headers) it(name, () => assert.equal(rolloutHeader({ ...waiting, ...patch }), want));
  it("shows what the controller has not recorded yet, and clusters no group holds, as -", () => {
    const res: RolloutResponse = { ...waiting, phase: "", message: "no rollout state yet", groups: [{ name: "all", approval: "None", clusters: [{ name: "member1", revision: "", phase: "", since: "", message: "" }] }, { name: "", approval: "None", clusters: [{ name: "gone", revision: R1, phase: "Succeeded", since: "", message: "" }] }] };
    assert.equal(rolloutTable(res, NOW), ["Deployment adm/web: no rollout state yet", "GROUP   CLUSTER   REVISION       PHASE       SINCE   MESSAGE", "all     member1   -              -           -       -", "-       gone      111111111111   Succeeded   -       -"].join("\n"));
  });
});

describe("flotillactl rollout pause|resume|approve|abort|undo", () => {
  it("prints one line: the template and what the command changed", () => {
    assert.equal(rolloutChangeLine({ ...waiting, change: "approved AfterGroup/canary in the rollout of revision r2 (WaitingForApproval → Progressing)" }), "Deployment adm/web: approved AfterGroup/canary in the rollout of revision r2 (WaitingForApproval → Progressing)");
  });
});
