import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster, Condition } from "../../shared/api/types.ts";
import { acceptanceCondition } from "./acceptance-condition.ts";

const NOW = Date.parse("2026-01-01T00:00:00Z");
const cluster = (accepted: boolean | undefined, conditions: Condition[] = []): Cluster => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "Cluster",
  metadata: { name: "member3" },
  spec: accepted === undefined ? {} : { hubAcceptsClient: accepted },
  status: { conditions },
});
const earlier = (status: Condition["status"]): Condition => ({ type: "Accepted", status, reason: "x", message: "x", lastTransitionTime: "2025-01-01T00:00:00Z" });

describe("acceptanceCondition", () => {
  const cases: { name: string; c: Cluster; require: boolean; want: Partial<Condition> | undefined; message?: RegExp }[] = [
    { name: "not required: no condition", c: cluster(undefined), require: false, want: undefined },
    { name: "new cluster: AwaitingAcceptance, saying what to run", c: cluster(undefined), require: true, want: { status: "False", reason: "AwaitingAcceptance", lastTransitionTime: new Date(NOW).toISOString() }, message: /receives no Work until an admin runs `flotillactl accept member3`/ },
    { name: "refused explicitly: AwaitingAcceptance", c: cluster(false), require: true, want: { status: "False", reason: "AwaitingAcceptance" } },
    { name: "accepted: True, HubAccepted", c: cluster(true), require: true, want: { status: "True", reason: "HubAccepted" } },
    { name: "unchanged status keeps its transition time", c: cluster(true, [earlier("True")]), require: true, want: { status: "True", lastTransitionTime: "2025-01-01T00:00:00Z" } },
    { name: "a change of status moves the transition time", c: cluster(true, [earlier("False")]), require: true, want: { status: "True", lastTransitionTime: new Date(NOW).toISOString() } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = acceptanceCondition(c.c, c.require, NOW);
      if (c.want === undefined) return assert.equal(got, undefined);
      assert.equal(got?.type, "Accepted");
      for (const [k, v] of Object.entries(c.want)) assert.equal(got?.[k as keyof Condition], v, k);
      if (c.message) assert.match(got?.message ?? "", c.message);
    });
  }
});
