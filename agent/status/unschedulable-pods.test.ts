import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import type { SummaryPod } from "../metrics/metrics-summary.ts";
import { selectsPod, unschedulableOf, unschedulableSince, withUnschedulable } from "./unschedulable-pods.ts";
import { UnschedulablePodWatch } from "./unschedulable-watch.ts";
import type { ManifestOutcome } from "./work-status.ts";

const deployment = (selector: unknown = { matchLabels: { app: "web" } }, kind = "Deployment", apiVersion = "apps/v1"): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name: "web", namespace: "shop" },
  spec: { selector },
});
const pod = (name: string, o: { labels?: Record<string, string>; phase?: string; scheduled?: { status: string; reason?: string; at?: string }; deleting?: boolean } = {}): SummaryPod => ({
  metadata: { name, labels: o.labels ?? { app: "web" }, ...(o.deleting ? { deletionTimestamp: "2026-11-24T10:00:00Z" } : {}) },
  status: {
    phase: o.phase ?? "Pending",
    ...(o.scheduled ? { conditions: [{ type: "PodScheduled", status: o.scheduled.status, ...(o.scheduled.reason ? { reason: o.scheduled.reason } : {}), ...(o.scheduled.at ? { lastTransitionTime: o.scheduled.at } : {}) }] } : {}),
  },
});
const stuck = (name: string, at: string, labels?: Record<string, string>) => pod(name, { scheduled: { status: "False", reason: "Unschedulable", at }, ...(labels ? { labels } : {}) });

describe("unschedulableSince: a pod the scheduler could not place", () => {
  const table: [string, SummaryPod, string | undefined][] = [
    ["PodScheduled=False, Unschedulable", stuck("p", "2026-11-24T10:00:00Z"), "2026-11-24T10:00:00Z"],
    ["scheduled", pod("p", { scheduled: { status: "True" } }), undefined],
    ["no condition yet", pod("p"), undefined],
    ["False for another reason (SchedulingGated)", pod("p", { scheduled: { status: "False", reason: "SchedulingGated", at: "2026-11-24T10:00:00Z" } }), undefined],
    ["being deleted", pod("p", { deleting: true, scheduled: { status: "False", reason: "Unschedulable", at: "2026-11-24T10:00:00Z" } }), undefined],
    ["Running (a stale condition)", pod("p", { phase: "Running", scheduled: { status: "False", reason: "Unschedulable", at: "2026-11-24T10:00:00Z" } }), undefined],
    ["no time", pod("p", { scheduled: { status: "False", reason: "Unschedulable" } }), undefined],
  ];
  for (const [name, p, want] of table) it(name, () => assert.equal(unschedulableSince(p), want));
});

describe("unschedulableOf: a workload's Unschedulable pods, by its selector", () => {
  const pods = [stuck("a", "2026-11-24T10:00:00Z"), stuck("b", "2026-11-24T10:02:00Z"), stuck("other", "2026-11-24T09:00:00Z", { app: "db" }), pod("c", { phase: "Running", scheduled: { status: "True" } })];
  const table: [string, KubeObject, SummaryPod[], ReturnType<typeof unschedulableOf>][] = [
    ["counts its own, with the latest time", deployment(), pods, { replicas: 2, since: "2026-11-24T10:02:00Z" }],
    ["none Unschedulable", deployment(), [pod("c", { phase: "Running" })], undefined],
    ["a StatefulSet", deployment(undefined, "StatefulSet"), pods, { replicas: 2, since: "2026-11-24T10:02:00Z" }],
    ["matchExpressions", deployment({ matchExpressions: [{ key: "app", operator: "In", values: ["db"] }] }), pods, { replicas: 1, since: "2026-11-24T09:00:00Z" }],
    ["an empty selector reads no pod", deployment({}), pods, undefined],
    ["no selector reads no pod", deployment(null), pods, undefined],
    ["a kind it does not read (a CRD)", deployment(undefined, "Widget", "example.com/v1"), pods, undefined],
  ];
  for (const [name, w, p, want] of table) it(name, () => assert.deepEqual(unschedulableOf(w, p), want));
});

it("selectsPod: a workload of a read kind whose selector matches", () => {
  assert.equal(selectsPod(deployment(), { app: "web" }), true);
  assert.equal(selectsPod(deployment(), { app: "db" }), false);
  assert.equal(selectsPod(deployment({}), { app: "web" }), false);
  assert.equal(selectsPod(deployment(undefined, "ConfigMap", "v1"), { app: "web" }), false);
});

describe("withUnschedulable", () => {
  const outcome = (live: KubeObject | undefined, applied = true): ManifestOutcome => ({ manifest: deployment(), applied, reason: "", message: "", ...(live ? { live } : {}) });
  const source = (synced: boolean) => ({ podsSynced: synced, podsIn: (ns: string) => (ns === "shop" ? [stuck("a", "2026-11-24T10:00:00Z")] : []) });
  it("adds a workload's Unschedulable pods once the pod cache is synced", () => {
    assert.deepEqual(withUnschedulable(source(true), [outcome(deployment())])[0]?.unschedulable, { replicas: 1, since: "2026-11-24T10:00:00Z" });
  });
  it("says nothing before the cache is synced (unknown is not 0), or without a cache", () => {
    assert.equal(withUnschedulable(source(false), [outcome(deployment())])[0]?.unschedulable, undefined);
    assert.equal(withUnschedulable(undefined, [outcome(deployment())])[0]?.unschedulable, undefined);
  });
  it("says nothing for an object not applied", () => {
    assert.equal(withUnschedulable(source(true), [outcome(deployment(), false)])[0]?.unschedulable, undefined);
  });
});

describe("UnschedulablePodWatch: calls back only when a pod's state changes", () => {
  it("became Unschedulable, still so, placed, deleted", () => {
    const calls: string[] = [];
    const w = new UnschedulablePodWatch((ns, labels) => calls.push(`${ns}:${labels?.app}`));
    const p = { ...stuck("a", "2026-11-24T10:00:00Z"), metadata: { ...stuck("a", "2026-11-24T10:00:00Z").metadata, namespace: "shop" } };
    w.seen(p, false);
    w.seen(p, false);
    assert.equal(w.size, 1);
    w.seen({ ...p, status: { phase: "Running" } }, false);
    assert.equal(w.size, 0);
    w.seen(p, false);
    w.seen(p, true);
    w.seen({ ...pod("b"), metadata: { ...pod("b").metadata, namespace: "shop" } }, false);
    assert.deepEqual(calls, ["shop:web", "shop:web", "shop:web", "shop:web"]);
    assert.equal(w.size, 0);
  });
});
