import assert from "node:assert/strict";
import { it } from "node:test";
import fc from "fast-check";
import { Health, type Hello, type WorkloadMetrics, type WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { hello, workStatus } from "./agent-message.fixtures.ts";
import { BOUNDS, boundMessage, type Checked, checkContentRequest, checkHello, checkWorkloadMetrics, checkWorkStatus, TRUNCATION_MARKER } from "./message-bounds.ts";

/** Runs a bounds table: refused with a reason, passed on as it is, or with some text cut to the bound with the marker. */
function checkTable<T>(table: [string, T, "ok" | "truncated" | RegExp][], check: (v: T) => Checked<T>, texts: (v: T) => string[]): void {
  for (const [name, given, want] of table) {
    const c = check(given);
    if (want instanceof RegExp) {
      assert.equal(c.ok, false, name);
      if (!c.ok) assert.match(c.reason, want, name);
      continue;
    }
    assert.ok(c.ok, name);
    assert.equal(c.truncated, want === "truncated", name);
    if (want === "ok") assert.equal(c.value, given, `${name}: passed on as it is`);
    else assert.ok(texts(c.value).some((m) => m.endsWith(TRUNCATION_MARKER) && m.length === BOUNDS.message), name);
  }
}

const status = (s: Partial<WorkStatus>): WorkStatus => ({ workKey: "apps/v1/Deployment/default/web", observedHash: "h", applied: true, available: true, reason: "", message: "", manifests: [], deleted: false, ...s });
const manifest = { resource: { group: "apps", version: "v1", kind: "Deployment", namespace: "default", name: "web" }, applied: true, health: Health.HEALTH_HEALTHY, reason: "", message: "", status: Buffer.alloc(0) };

it("bounds each field of a WorkStatus: long messages are cut with a marker, absurd ones refused", () => {
  const table: [string, WorkStatus, "ok" | "truncated" | RegExp][] = [
    ["a plain status", status({}), "ok"],
    ["a message at the bound", status({ message: "m".repeat(BOUNDS.message) }), "ok"],
    ["a message over the bound", status({ message: "m".repeat(BOUNDS.message + 1) }), "truncated"],
    ["a manifest message over the bound", status({ manifests: [{ ...manifest, message: "m".repeat(50_000) }] }), "truncated"],
    ["an absurd message", status({ message: "m".repeat(BOUNDS.absurdMessage + 1) }), /message is/],
    ["a key that is not a work key", status({ workKey: "web" }), /not group\/version/],
    ["an overlong key", status({ workKey: "k".repeat(BOUNDS.workKey + 1) }), /workKey is/],
    ["an overlong hash", status({ observedHash: "h".repeat(BOUNDS.hash + 1) }), /observedHash/],
    ["an overlong reason", status({ reason: "R".repeat(BOUNDS.word + 1) }), /reason/],
    ["too many manifests", status({ manifests: Array.from({ length: BOUNDS.manifests + 1 }, () => manifest) }), /manifests \(at most/],
    ["an overlong resource name", status({ manifests: [{ ...manifest, resource: { ...manifest.resource, name: "n".repeat(254) } }] }), /manifests\[0\]\.resource\.name/],
    ["an oversized object status", status({ manifests: [{ ...manifest, status: Buffer.alloc(BOUNDS.objectStatus + 1) }] }), /manifests\[0\]\.status/],
    ["unschedulable pods with their time", status({ manifests: [{ ...manifest, unschedulableReplicas: 2, unschedulableSince: "2026-11-24T10:00:00Z" }] }), "ok"],
    ["an unschedulable time with an offset", status({ manifests: [{ ...manifest, unschedulableReplicas: 2, unschedulableSince: "2026-11-24T10:00:00.5+01:00" }] }), "ok"],
    ["an unschedulable time that is no time", status({ manifests: [{ ...manifest, unschedulableReplicas: 2, unschedulableSince: "yesterday" }] }), /unschedulableSince is not an RFC 3339 time/],
    ["an unschedulable time that does not exist", status({ manifests: [{ ...manifest, unschedulableReplicas: 2, unschedulableSince: "2026-13-45T10:00:00Z" }] }), /unschedulableSince/],
  ];
  checkTable(table, checkWorkStatus, (v) => [v.message, ...v.manifests.map((m) => m.message)]);
});

it("refuses a Hello that names absurd Works", () => {
  const h = (x: Partial<Hello>): Hello => ({ clusterName: "member1", agentVersion: "v1", workHashes: {}, needsContents: false, protocolVersion: 2, features: [], earlierRegistrationWorks: [], earlierRegistrationBits: Buffer.alloc(0), ...x });
  assert.equal(checkHello(h({ workHashes: { "apps/v1/Deployment/default/web": "h" } })).ok, true);
  assert.equal(checkHello(h({ agentVersion: "v".repeat(BOUNDS.word + 1) })).ok, false);
  assert.equal(checkHello(h({ features: Array.from({ length: BOUNDS.helloFeatures + 1 }, (_, i) => `f${i}`) })).ok, false);
  assert.equal(checkHello(h({ features: ["f".repeat(BOUNDS.feature + 1)] })).ok, false);
  assert.equal(checkHello(h({ features: ["durable-preserve"] })).ok, true);
  assert.equal(checkHello(h({ workHashes: { ["k".repeat(BOUNDS.workKey + 1)]: "h" } })).ok, false);
  assert.equal(checkHello(h({ workHashes: { k: "h".repeat(BOUNDS.hash + 1) } })).ok, false);
  // Works of an earlier registration: only those the Hello holds, so they cost no more than workHashes.
  assert.equal(checkHello(h({ workHashes: { a: "h" }, earlierRegistrationWorks: ["a"] })).ok, true);
  assert.equal(checkHello(h({ workHashes: { a: "h" }, earlierRegistrationWorks: ["b"] })).ok, false);
  assert.equal(checkHello(h({ workHashes: { a: "h" }, earlierRegistrationWorks: ["a", "a"] })).ok, false);
  // …and as bits over the held keys: no more bytes than they need, no bit past the last.
  assert.equal(checkHello(h({ workHashes: { a: "h", b: "h" }, earlierRegistrationBits: Buffer.from([0b10]) })).ok, true);
  assert.equal(checkHello(h({ workHashes: { a: "h" }, earlierRegistrationBits: Buffer.from([0b10]) })).ok, false);
  assert.equal(checkHello(h({ workHashes: { a: "h" }, earlierRegistrationBits: Buffer.from([1, 0]) })).ok, false);
});

it("refuses a ContentRequest for too many Works or absurd keys", () => {
  const keys = (n: number, key = "apps/v1/Deployment/default/web") => ({ workKeys: Array.from({ length: n }, () => key) });
  assert.equal(checkContentRequest(keys(BOUNDS.contentKeys)).ok, true);
  assert.equal(checkContentRequest(keys(BOUNDS.contentKeys + 1)).ok, false);
  assert.equal(checkContentRequest(keys(1, "k".repeat(BOUNDS.workKey + 1))).ok, false);
});

it("boundMessage keeps short text, cuts long text to the bound, refuses absurd text", () => {
  assert.deepEqual(boundMessage("hi"), { text: "hi", truncated: false });
  assert.equal(boundMessage("x".repeat(BOUNDS.message * 2))?.text.length, BOUNDS.message);
  assert.equal(boundMessage("x".repeat(BOUNDS.absurdMessage + 1)), undefined);
});

it("never throws, and what it passes on is within every bound", () => {
  fc.assert(
    fc.property(workStatus(["apps/v1/Deployment/default/web"]), (s) => {
      const c = checkWorkStatus(s);
      if (!c.ok) return assert.ok(c.reason.length > 0 && c.reason.length < 200);
      assert.ok(c.value.message.length <= BOUNDS.message && c.value.workKey.length <= BOUNDS.workKey && c.value.reason.length <= BOUNDS.word);
      for (const m of c.value.manifests) assert.ok(m.message.length <= BOUNDS.message && m.status.byteLength <= BOUNDS.objectStatus);
    }),
    { numRuns: 300 },
  );
  fc.assert(
    fc.property(hello(), (h) => {
      const c = checkHello(h);
      assert.ok(c.ok || c.reason.length > 0);
    }),
    { numRuns: 300 },
  );
});

it("bounds a WorkloadMetrics: names, counts, consistent groups, exact int64 quantities, the window, problems cut", () => {
  const cpu = { key: "cpu", readyPods: 2, readyUsage: "700", readyRequests: "1000", unreadyPods: 1, unreadyRequests: "500", missingPods: 0, missingRequests: "0", podsWithoutRequest: 0 };
  const m = (o: Partial<WorkloadMetrics>): WorkloadMetrics => ({
    workload: { apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name: "web" },
    wantedHash: "h", pods: 3, readyPods: 2, resources: [cpu], podsMetrics: [], objectMetrics: [], externalMetrics: [], windowStartMs: 0, windowEndMs: 0, problems: [], ...o,
  });
  const table: [string, WorkloadMetrics, "ok" | "truncated" | RegExp][] = [
    ["a plain summary", m({}), "ok"],
    ["a negative External value", m({ externalMetrics: [{ key: "queue", value: "-5" }] }), "ok"],
    ["the largest int64", m({ objectMetrics: [{ key: "o", value: "9223372036854775807" }] }), "ok"],
    ["a long problem", m({ problems: ["p".repeat(BOUNDS.message + 1)] }), "truncated"],
    ["no workload", m({ workload: undefined }), /no workload/],
    ["an overlong name", m({ workload: { apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name: "n".repeat(254) } }), /workload\.name/],
    ["absurd pods", m({ pods: BOUNDS.workloadPods + 1 }), /pods \(at most/],
    ["more ready pods than pods", m({ readyPods: 4 }), /4 ready pods of 3/],
    ["groups that do not add up to the pods", m({ pods: 4 }), /3 pods in its groups/],
    ["a negative usage", m({ resources: [{ ...cpu, readyUsage: "-1" }] }), /readyUsage is not a non-negative/],
    ["a fractional request", m({ resources: [{ ...cpu, readyRequests: "1.5" }] }), /readyRequests/],
    ["a value past int64", m({ externalMetrics: [{ key: "q", value: "9223372036854775808" }] }), /int64/],
    ["a key twice", m({ resources: [cpu, cpu] }), /twice/],
    ["an overlong key", m({ objectMetrics: [{ key: "k".repeat(BOUNDS.metricKey + 1), value: "1" }] }), /key is/],
    ["too many metrics", m({ externalMetrics: Array.from({ length: BOUNDS.workloadMetrics + 1 }, (_, i) => ({ key: `e${i}`, value: "1" })) }), /externalMetrics \(at most/],
    ["a window ending before it starts", m({ windowStartMs: 10, windowEndMs: 5 }), /window/],
    ["too many problems", m({ problems: Array.from({ length: BOUNDS.metricProblems + 1 }, () => "p") }), /problems \(at most/],
    ["Pods metric groups that do not add up", m({ podsMetrics: [{ key: "rps", readyPods: 1, readyValue: "1", unreadyPods: 0, missingPods: 0 }] }), /1 pods in its groups/],
  ];
  checkTable(table, checkWorkloadMetrics, (v) => v.problems);
});
