import assert from "node:assert/strict";
import { it } from "node:test";
import fc from "fast-check";
import { Health, type Hello, type WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { hello, workStatus } from "./agent-message.fixtures.ts";
import { BOUNDS, boundMessage, checkContentRequest, checkHello, checkWorkStatus, TRUNCATION_MARKER } from "./message-bounds.ts";

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
  ];
  for (const [name, s, want] of table) {
    const c = checkWorkStatus(s);
    if (want instanceof RegExp) {
      assert.equal(c.ok, false, name);
      if (!c.ok) assert.match(c.reason, want, name);
      continue;
    }
    assert.ok(c.ok, name);
    assert.equal(c.truncated, want === "truncated", name);
    if (want === "ok") assert.equal(c.value, s, `${name}: passed on as it is`);
    else assert.ok([c.value.message, ...c.value.manifests.map((m) => m.message)].some((m) => m.endsWith(TRUNCATION_MARKER) && m.length === BOUNDS.message), name);
  }
});

it("refuses a Hello that names absurd Works", () => {
  const h = (x: Partial<Hello>): Hello => ({ clusterName: "member1", agentVersion: "v1", workHashes: {}, needsContents: false, protocolVersion: 2, features: [], ...x });
  assert.equal(checkHello(h({ workHashes: { "apps/v1/Deployment/default/web": "h" } })).ok, true);
  assert.equal(checkHello(h({ agentVersion: "v".repeat(BOUNDS.word + 1) })).ok, false);
  assert.equal(checkHello(h({ features: Array.from({ length: BOUNDS.helloFeatures + 1 }, (_, i) => `f${i}`) })).ok, false);
  assert.equal(checkHello(h({ features: ["f".repeat(BOUNDS.feature + 1)] })).ok, false);
  assert.equal(checkHello(h({ features: ["durable-preserve"] })).ok, true);
  assert.equal(checkHello(h({ workHashes: { ["k".repeat(BOUNDS.workKey + 1)]: "h" } })).ok, false);
  assert.equal(checkHello(h({ workHashes: { k: "h".repeat(BOUNDS.hash + 1) } })).ok, false);
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
