import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ResourceBindingStatus } from "../../shared/api/types.ts";
import { silentLogger } from "../../shared/logger.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import { KubeError } from "../../shared/kube-rest.ts";
import { COALESCE_WINDOW_MS, EventRecorder, eventKey, eventName, type Failure, type InvolvedObject, MAX_REMEMBERED, newFailures, planEvent, type SeenEvent } from "./event-recorder.ts";

const T0 = Date.UTC(2026, 0, 2, 3, 4, 5);
const web: InvolvedObject = { apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name: "web", uid: "u-1" };
const crd: InvolvedObject = { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name: "widgets.example.com", uid: "u-2" };
const failed: Failure = { reason: "ApplyOverridesFailed", message: "cluster member1: path /spec/nothing does not exist" };
const seen = (lastMs: number): SeenEvent => ({ namespace: "shop", name: "web.abc", count: 3, firstTimestamp: "2026-01-02T02:00:00Z", lastMs });

describe("planEvent", () => {
  const cases: { name: string; object: InvolvedObject; seen?: SeenEvent; nowMs: number; want: { action: string; namespace: string; name: string; count: number; firstTimestamp: string; lastTimestamp: string } }[] = [
    { name: "a first occurrence creates an Event in the template's namespace", object: web, nowMs: T0, want: { action: "create", namespace: "shop", name: "web.new", count: 1, firstTimestamp: "2026-01-02T03:04:05Z", lastTimestamp: "2026-01-02T03:04:05Z" } },
    { name: "a cluster-scoped template's Event goes to namespace default", object: crd, nowMs: T0, want: { action: "create", namespace: "default", name: "web.new", count: 1, firstTimestamp: "2026-01-02T03:04:05Z", lastTimestamp: "2026-01-02T03:04:05Z" } },
    { name: "a repeat within the window patches the same Event's count and lastTimestamp", object: web, seen: seen(T0 - 5 * 60_000), nowMs: T0, want: { action: "patch", namespace: "shop", name: "web.abc", count: 4, firstTimestamp: "2026-01-02T02:00:00Z", lastTimestamp: "2026-01-02T03:04:05Z" } },
    { name: "a repeat just inside the window still coalesces", object: web, seen: seen(T0 - COALESCE_WINDOW_MS + 1), nowMs: T0, want: { action: "patch", namespace: "shop", name: "web.abc", count: 4, firstTimestamp: "2026-01-02T02:00:00Z", lastTimestamp: "2026-01-02T03:04:05Z" } },
    { name: "a repeat after the window creates a new Event", object: web, seen: seen(T0 - COALESCE_WINDOW_MS), nowMs: T0, want: { action: "create", namespace: "shop", name: "web.new", count: 1, firstTimestamp: "2026-01-02T03:04:05Z", lastTimestamp: "2026-01-02T03:04:05Z" } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { write, seen: next } = planEvent(c.object, failed, c.seen, c.nowMs, "web.new");
      const e = write.event;
      assert.deepEqual(
        { action: write.action, namespace: e.metadata.namespace, name: e.metadata.name, count: e.count, firstTimestamp: e.firstTimestamp, lastTimestamp: e.lastTimestamp },
        c.want,
      );
      if (write.action === "patch") assert.deepEqual(write.patch, { count: c.want.count, lastTimestamp: c.want.lastTimestamp });
      assert.deepEqual(next, { namespace: c.want.namespace, name: c.want.name, count: c.want.count, firstTimestamp: c.want.firstTimestamp, lastMs: c.nowMs });
      assert.deepEqual(e.involvedObject, c.object);
      assert.equal(e.type, "Warning");
      assert.equal(e.reason, "ApplyOverridesFailed");
      assert.equal(e.message, failed.message);
      assert.equal(e.source.component, "flotilla-control-plane");
    });
  }

  it("caps a long message at the apiserver's 1024 characters", () => {
    const { write } = planEvent(web, { reason: "CreationFailed", message: "x".repeat(5000) }, undefined, T0, "web.new");
    assert.equal(write.event.message.length, 1024);
  });

  it("writes a Normal Event when asked, and a Normal and a Warning with the same words are two Events", () => {
    const normal = { reason: "SuccessfulRescale", message: "New size: 4; reason: cpu above target", type: "Normal" as const };
    assert.equal(planEvent(web, normal, undefined, T0, "web.new").write.event.type, "Normal");
    assert.notEqual(eventKey(web, normal), eventKey(web, { reason: normal.reason, message: normal.message }));
  });
});

describe("eventName", () => {
  it("is the object's name and a hex timestamp, unique per sequence number", () => {
    assert.match(eventName("web", T0, 0), /^web\.[0-9a-f]+$/);
    assert.notEqual(eventName("web", T0, 0), eventName("web", T0, 1));
  });
  it("stays a valid DNS subdomain for any object name", () => {
    const n = eventName(`System:Controller:${"a".repeat(300)}`, T0, 0);
    assert.ok(n.length <= 253);
    assert.match(n, /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/);
  });
});

describe("newFailures", () => {
  const targets = new Set(["member1", "member2"]);
  const scheduled = (status: "True" | "False", reason: string) => [{ type: "Scheduled", status, reason, message: `${reason} msg`, lastTransitionTime: "t" }];
  const cases: { name: string; previous?: ResourceBindingStatus; current: ResourceBindingStatus; want: Failure[] }[] = [
    { name: "nothing failing, nothing new", current: { aggregatedStatus: [{ clusterName: "member1", applied: true, reason: "" }] }, want: [] },
    {
      name: "a cluster that starts failing",
      previous: { aggregatedStatus: [{ clusterName: "member1", applied: true, reason: "" }] },
      current: { aggregatedStatus: [{ clusterName: "member1", applied: false, reason: "CreationFailed", message: "forbidden" }] },
      want: [{ reason: "CreationFailed", message: "cluster member1: forbidden" }],
    },
    {
      name: "a standing failure is not new",
      previous: { aggregatedStatus: [{ clusterName: "member1", reason: "CreationFailed", message: "forbidden" }] },
      current: { aggregatedStatus: [{ clusterName: "member1", reason: "CreationFailed", message: "forbidden" }] },
      want: [],
    },
    {
      name: "the same word with a new message is new",
      previous: { aggregatedStatus: [{ clusterName: "member1", reason: "ApplyOverridesFailed", message: "rule 0" }] },
      current: { aggregatedStatus: [{ clusterName: "member1", reason: "ApplyOverridesFailed", message: "rule 1" }] },
      want: [{ reason: "ApplyOverridesFailed", message: "cluster member1: rule 1" }],
    },
    { name: "a failure without a message says its word", current: { aggregatedStatus: [{ clusterName: "member2", reason: "RetrievalFailed" }] }, want: [{ reason: "RetrievalFailed", message: "cluster member2: RetrievalFailed" }] },
    { name: "WaitingForRemoval is not a failure", current: { aggregatedStatus: [{ clusterName: "member1", reason: "WaitingForRemoval" }] }, want: [] },
    { name: "ClusterNotReady is the cluster's failure, not the template's", current: { aggregatedStatus: [{ clusterName: "member1", reason: "ClusterNotReady" }] }, want: [] },
    { name: "a cluster that is no longer a target is skipped", current: { aggregatedStatus: [{ clusterName: "member3", reason: "DeletionFailed", message: "x" }] }, want: [] },
    { name: "Scheduled turning False", previous: { conditions: scheduled("True", "Scheduled") }, current: { conditions: scheduled("False", "NoClusterFit") }, want: [{ reason: "NoClusterFit", message: "NoClusterFit msg" }] },
    { name: "Scheduled False from the first write", current: { conditions: scheduled("False", "ComputePlacementFailed") }, want: [{ reason: "ComputePlacementFailed", message: "ComputePlacementFailed msg" }] },
    { name: "Scheduled staying False for the same reason", previous: { conditions: scheduled("False", "NoClusterFit") }, current: { conditions: scheduled("False", "NoClusterFit") }, want: [] },
    { name: "Scheduled False for another reason", previous: { conditions: scheduled("False", "ReplicasUnplaced") }, current: { conditions: scheduled("False", "NoClusterFit") }, want: [{ reason: "NoClusterFit", message: "NoClusterFit msg" }] },
    { name: "a write without conditions (not the leader) says nothing of Scheduled", previous: { conditions: scheduled("False", "NoClusterFit") }, current: { aggregatedStatus: [] }, want: [] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(newFailures(c.previous, c.current, targets), c.want));
});

describe("EventRecorder", () => {
  function fakeRest(fail?: (method: string, path: string) => Error | undefined) {
    const calls: { method: string; path: string; body: Record<string, unknown> }[] = [];
    const answer = async (method: string, path: string, body: unknown) => {
      calls.push({ method, path, body: body as Record<string, unknown> });
      const err = fail?.(method, path);
      if (err !== undefined) throw err;
      return {};
    };
    const rest = {
      request: (method: string, path: string, init: { body?: unknown }) => answer(method, path, init.body),
      mergePatch: (path: string, patch: unknown) => answer("PATCH", path, patch),
    } as unknown as KubeRest;
    return { rest, calls };
  }

  it("creates once, then patches the same Event for a repeat", async () => {
    const { rest, calls } = fakeRest();
    let now = T0;
    const r = new EventRecorder({ rest, log: silentLogger(), now: () => now });
    await r.record(web, failed);
    now += 60_000;
    await r.record(web, failed);
    assert.deepEqual(calls.map((c) => c.method), ["POST", "PATCH"]);
    assert.equal(calls[0]?.path, "/api/v1/namespaces/shop/events");
    const name = (calls[0]?.body.metadata as { name: string }).name;
    assert.equal(calls[1]?.path, `/api/v1/namespaces/shop/events/${name}`);
    assert.deepEqual(calls[1]?.body, { count: 2, lastTimestamp: "2026-01-02T03:05:05Z" });
  });

  it("creates the Event again under its name when the patch finds it gone", async () => {
    const { rest, calls } = fakeRest((method) => (method === "PATCH" ? new KubeError(404, "NotFound", "gone") : undefined));
    const r = new EventRecorder({ rest, log: silentLogger(), now: () => T0 });
    await r.record(web, failed);
    await r.record(web, failed);
    assert.deepEqual(calls.map((c) => c.method), ["POST", "PATCH", "POST"]);
    assert.equal((calls[2]?.body.metadata as { name: string }).name, (calls[0]?.body.metadata as { name: string }).name);
    assert.equal(calls[2]?.body.count, 2);
  });

  it("never fails its caller when the apiserver refuses", async () => {
    const { rest } = fakeRest(() => new KubeError(403, "Forbidden", "events is forbidden"));
    const r = new EventRecorder({ rest, log: silentLogger(), now: () => T0 });
    await r.record(web, failed);
  });

  it("writes a burst, then a steady rate, and drops the rest of a storm", async () => {
    const { rest, calls } = fakeRest();
    let now = T0;
    const r = new EventRecorder({ rest, log: silentLogger(), now: () => now });
    await Promise.all(Array.from({ length: 150 }, (_, i) => r.record(web, { reason: "CreationFailed", message: `m${i}` })));
    assert.equal(calls.length, 100, "the burst");
    assert.equal(r.dropped, 50);
    now += 1000;
    await Promise.all(Array.from({ length: 20 }, (_, i) => r.record(web, { reason: "CreationFailed", message: `later${i}` })));
    assert.equal(calls.length, 110, "10 per second after it");
  });

  it("remembers at most MAX_REMEMBERED keys, forgetting the least recently seen", async () => {
    const { rest, calls } = fakeRest();
    let now = T0;
    const r = new EventRecorder({ rest, log: silentLogger(), now: () => (now += 100) });
    await r.record(web, { reason: "CreationFailed", message: "first" });
    await Promise.all(Array.from({ length: MAX_REMEMBERED }, (_, i) => r.record(web, { reason: "CreationFailed", message: `m${i}` })));
    calls.length = 0;
    await r.record(web, { reason: "CreationFailed", message: "first" });
    assert.deepEqual(calls.map((c) => c.method), ["POST"], "the oldest key was forgotten, so this is a new Event");
  });
});
