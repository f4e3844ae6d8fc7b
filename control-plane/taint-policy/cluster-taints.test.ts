import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ClusterTaintPolicy, ClusterTaintPolicySpec, MatchCondition } from "../../shared/api/taint-policy.ts";
import type { Cluster, Condition, Taint } from "../../shared/api/types.ts";
import { clusterTaints, conditionsMatch, POLICY_TAINTS_ANNOTATION } from "./cluster-taints.ts";

const NOW = "2026-11-25T05:00:00Z";
const ready = (status: Condition["status"]): Condition => ({ type: "Ready", status, reason: "x", message: "x", lastTransitionTime: "2026-01-01T00:00:00Z" });
const cluster = (o: { ready?: Condition["status"]; taints?: Taint[]; owned?: string; labels?: Record<string, string>; name?: string } = {}): Cluster => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "Cluster",
  metadata: { name: o.name ?? "member1", ...(o.labels ? { labels: o.labels } : {}), ...(o.owned === undefined ? {} : { annotations: { [POLICY_TAINTS_ANNOTATION]: o.owned } }) },
  spec: o.taints ? { taints: o.taints } : {},
  status: { conditions: o.ready === undefined ? [] : [ready(o.ready)] },
});
const notReady: MatchCondition[] = [{ conditionType: "Ready", operator: "In", statusValues: ["False", "Unknown"] }];
const isReady: MatchCondition[] = [{ conditionType: "Ready", operator: "In", statusValues: ["True"] }];
const policy = (name: string, spec: Partial<ClusterTaintPolicySpec> = {}, created = "2026-01-01T00:00:00Z"): ClusterTaintPolicy => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ClusterTaintPolicy",
  metadata: { name, creationTimestamp: created },
  spec: { addOnConditions: notReady, removeOnConditions: isReady, taints: [{ key: "not-ready", effect: "NoSchedule" }], ...spec },
});
const show = (ts: Taint[]) => ts.map((t) => `${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`).join(" ");

describe("clusterTaints", () => {
  const userTaint: Taint = { key: "maintenance", effect: "NoSchedule" };
  const cases: { name: string; c: Cluster; policies: ClusterTaintPolicy[]; allowNoExecute?: boolean; want: string; owned: string; refused?: string[] }[] = [
    { name: "NotReady: the taint is added", c: cluster({ ready: "False" }), policies: [policy("p")], want: "not-ready:NoSchedule", owned: "not-ready:NoSchedule" },
    { name: "Unknown is in statusValues too", c: cluster({ ready: "Unknown" }), policies: [policy("p")], want: "not-ready:NoSchedule", owned: "not-ready:NoSchedule" },
    { name: "Ready: nothing added", c: cluster({ ready: "True" }), policies: [policy("p")], want: "", owned: "" },
    { name: "Ready again: the policy's taint goes", c: cluster({ ready: "True", taints: [{ key: "not-ready", effect: "NoSchedule", timeAdded: NOW }], owned: "not-ready:NoSchedule" }), policies: [policy("p")], want: "", owned: "" },
    { name: "the user's own taints stay when the policy removes", c: cluster({ ready: "True", taints: [userTaint, { key: "not-ready", effect: "NoSchedule" }], owned: "not-ready:NoSchedule" }), policies: [policy("p")], want: "maintenance:NoSchedule", owned: "" },
    { name: "a user's taint of the policy's key and effect is theirs: never removed", c: cluster({ ready: "True", taints: [{ key: "not-ready", effect: "NoSchedule" }] }), policies: [policy("p")], want: "not-ready:NoSchedule", owned: "" },
    { name: "nor added twice, nor taken over", c: cluster({ ready: "False", taints: [{ key: "not-ready", value: "mine", effect: "NoSchedule" }] }), policies: [policy("p")], want: "not-ready=mine:NoSchedule", owned: "" },
    { name: "same key, other effect: a different taint", c: cluster({ ready: "False", taints: [{ key: "not-ready", effect: "NoExecute" }] }), policies: [policy("p")], want: "not-ready:NoExecute not-ready:NoSchedule", owned: "not-ready:NoSchedule" },
    { name: "a policy taint removed by hand is forgotten", c: cluster({ ready: "False", taints: [], owned: "not-ready:NoSchedule" }), policies: [policy("p", { addOnConditions: [] })], want: "", owned: "" },
    { name: "no conditions: the policy neither adds nor removes", c: cluster({ ready: "False", taints: [{ key: "not-ready", effect: "NoSchedule" }], owned: "not-ready:NoSchedule" }), policies: [policy("p", { addOnConditions: [], removeOnConditions: [] })], want: "not-ready:NoSchedule", owned: "not-ready:NoSchedule" },
    { name: "no policy (a deleted one): the taints stay", c: cluster({ ready: "True", taints: [{ key: "not-ready", effect: "NoSchedule" }], owned: "not-ready:NoSchedule" }), policies: [], want: "not-ready:NoSchedule", owned: "not-ready:NoSchedule" },
    { name: "not targeted by name: untouched", c: cluster({ ready: "False" }), policies: [policy("p", { targetClusters: { clusterNames: ["member2"] } })], want: "", owned: "" },
    { name: "excluded: untouched", c: cluster({ ready: "False" }), policies: [policy("p", { targetClusters: { exclude: ["member1"] } })], want: "", owned: "" },
    { name: "targeted by label", c: cluster({ ready: "False", labels: { env: "prod" } }), policies: [policy("p", { targetClusters: { labelSelector: { matchLabels: { env: "prod" } } } })], want: "not-ready:NoSchedule", owned: "not-ready:NoSchedule" },
    { name: "a value is carried", c: cluster({ ready: "False" }), policies: [policy("p", { taints: [{ key: "k", value: "v", effect: "NoSchedule" }] })], want: "k=v:NoSchedule", owned: "k:NoSchedule" },
    {
      name: "NoExecute without --allow-no-execute-taint-policy: the whole policy is refused",
      c: cluster({ ready: "False" }),
      policies: [policy("p", { taints: [{ key: "a", effect: "NoSchedule" }, { key: "b", effect: "NoExecute" }] }), policy("q")],
      want: "not-ready:NoSchedule",
      owned: "not-ready:NoSchedule",
      refused: ["p"],
    },
    { name: "NoExecute allowed: added", c: cluster({ ready: "False" }), allowNoExecute: true, policies: [policy("p", { taints: [{ key: "b", effect: "NoExecute" }] })], want: "b:NoExecute", owned: "b:NoExecute" },
    {
      name: "disagreeing policies: the newer one wins, whatever the list order",
      c: cluster({ ready: "False" }),
      policies: [policy("newer", { addOnConditions: [], removeOnConditions: notReady }, "2026-02-01T00:00:00Z"), policy("older")],
      want: "",
      owned: "",
    },
    {
      name: "AND of conditions: all must match",
      c: cluster({ ready: "False" }),
      policies: [policy("p", { addOnConditions: [...notReady, { conditionType: "Accepted", operator: "In", statusValues: ["True"] }] })],
      want: "",
      owned: "",
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = clusterTaints(c.c, c.policies, { now: NOW, allowNoExecute: c.allowNoExecute ?? false });
      assert.equal(show(got.taints), c.want);
      assert.equal(got.owned, c.owned);
      assert.deepEqual(got.refused, c.refused ?? []);
    });
  }
  it("stamps timeAdded on a taint it adds, and keeps an existing taint as it was", () => {
    const old: Taint = { key: "maintenance", effect: "NoSchedule", timeAdded: "2025-01-01T00:00:00Z" };
    const got = clusterTaints(cluster({ ready: "False", taints: [old] }), [policy("p")], { now: NOW, allowNoExecute: false });
    assert.deepEqual(got.taints, [old, { key: "not-ready", effect: "NoSchedule", timeAdded: NOW }]);
  });
});

describe("conditionsMatch", () => {
  const conds = [ready("True")];
  const cases: { name: string; match: MatchCondition[] | undefined; want: boolean }[] = [
    { name: "none: never", match: undefined, want: false },
    { name: "empty: never", match: [], want: false },
    { name: "In, listed", match: isReady, want: true },
    { name: "In, not listed", match: notReady, want: false },
    { name: "NotIn, not listed", match: [{ conditionType: "Ready", operator: "NotIn", statusValues: ["False"] }], want: true },
    { name: "NotIn, listed", match: [{ conditionType: "Ready", operator: "NotIn", statusValues: ["True"] }], want: false },
    { name: "a condition the cluster lacks matches neither In nor NotIn", match: [{ conditionType: "Accepted", operator: "NotIn", statusValues: ["True"] }], want: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(conditionsMatch(conds, c.match), c.want));
});
