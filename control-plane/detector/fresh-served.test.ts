import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ResourceBinding } from "../../shared/api/types.ts";
import { FreshServed } from "./fresh-served.ts";

const T = "2026-11-24T10:00:00Z";
const binding = (served?: string): ResourceBinding => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceBinding",
  metadata: { name: "web-deployment", namespace: "ns", ...(served ? { annotations: { "flotilla.dev/reschedule-served": served } } : {}) },
  spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "ns", name: "web", uid: "u" }, clusters: [], rescheduleTriggeredAt: T },
});

describe("FreshServed: one trigger, one fresh schedule, never undone by a stale cache", () => {
  it("serves a trigger once, waits while the cache lags its write, then carries what was served", () => {
    let now = 0;
    const fresh = new FreshServed(() => now);
    const key = "apps/v1/Deployment/ns/web";
    assert.equal(fresh.due(key, binding()), true);
    assert.deepEqual(fresh.input(key, binding()), { freshTrigger: T });
    fresh.written(key, T);
    now = 50;
    assert.equal(fresh.due(key, binding()), false, "not served twice while the cache lags");
    assert.equal(fresh.input(key, binding()), "behind", "nor scheduled from the binding before the write");
    assert.deepEqual(fresh.input(key, binding(T)), { served: T }, "the cache caught up: an ordinary schedule carries the annotation");
    now = 60_000;
    assert.deepEqual(fresh.input(key, binding(T)), { served: T }, "long after: the binding alone decides");
    assert.deepEqual(fresh.input(key, binding()), { freshTrigger: T }, "(an annotation removed by hand asks again)");
  });
});
