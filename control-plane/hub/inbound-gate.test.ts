import assert from "node:assert/strict";
import { it } from "node:test";
import pino from "pino";
import { FakeClock } from "../../shared/clock.ts";
import type { WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { InboundGate, inboundBucket } from "./inbound-gate.ts";

const KEY = "apps/v1/Deployment/default/web";
const OTHER = "apps/v1/Deployment/default/other-clusters-app";
const report = (workKey: string, deleted = false): WorkStatus => ({ workKey, observedHash: "h", applied: !deleted, available: false, reason: "", message: "", manifests: [], deleted });

function gate(opts: { inStore?: Set<string>; recorded?: Set<string> } = {}) {
  const clock = new FakeClock();
  const lines: { msg: string; unloggedSinceLast: number }[] = [];
  const log = pino({ level: "warn" }, { write: (l: string) => lines.push(JSON.parse(l) as { msg: string; unloggedSinceLast: number }) });
  const inStore = opts.inStore ?? new Set<string>();
  const g = new InboundGate({ cluster: "member2", log, bucket: inboundBucket({ qps: 10, burst: 5 }, clock), clock, inStore: (k) => inStore.has(k), recorded: (k) => opts.recorded?.has(k) ?? false });
  return { g, clock, lines, inStore };
}

it("passes reports about Works sent to the cluster, drops the others", () => {
  const { g, inStore } = gate({ inStore: new Set([KEY]) });
  assert.ok(g.workStatus(report(KEY)), "a Work in the store");
  assert.equal(g.workStatus(report(OTHER)), undefined, "a Work never sent to member2");
  assert.equal(g.workStatus(report(OTHER, true)), undefined, "nor its deletion");
  // Sent, then gone from the store: its confirmation still counts, once.
  inStore.delete(KEY);
  g.sent(KEY);
  assert.ok(g.workStatus(report(KEY, true)), "the deletion confirmation of a Work sent on this stream");
  assert.equal(g.workStatus(report(KEY)), undefined, "after the confirmation it is no longer the cluster's");
});

it("passes a report the control plane's record backs (after a restart), and cuts long messages", () => {
  const { g } = gate({ recorded: new Set([KEY]) });
  assert.ok(g.workStatus(report(KEY, true)));
  const long = g.workStatus({ ...report(KEY), message: "m".repeat(100_000) });
  assert.ok(long && long.message.length < 5000 && long.message.endsWith("[truncated by the hub]"));
  assert.equal(g.workStatus({ ...report(KEY), workKey: "not a key" }), undefined);
});

it("answers a content request only for the cluster's Works in the store, once per key, and ignores the rest", () => {
  const { g, lines } = gate({ inStore: new Set([KEY]) });
  assert.deepEqual(g.contentRequest({ workKeys: [KEY, OTHER, KEY, "not a key"] }), [KEY]);
  assert.equal(lines.length, 1, "the ignored keys are logged (rate-limited)");
  assert.deepEqual(g.contentRequest({ workKeys: Array.from({ length: 1001 }, () => KEY) }), [], "out of bounds: ignored whole");
});

it("logs dropped reports at most every 10 s, counting the rest", () => {
  const { g, clock, lines } = gate();
  for (let i = 0; i < 50; i++) g.workStatus(report(OTHER));
  assert.equal(lines.length, 1);
  clock.advance(10_000);
  g.workStatus(report(OTHER));
  assert.equal(lines.length, 2);
  assert.equal(lines[1]?.unloggedSinceLast, 49);
  assert.ok(lines.every((l) => !JSON.stringify(l).includes('"status"')), "no object contents in the log");
});

it("lets a burst through, then asks to stop reading for as long as the rate needs", () => {
  const { g, clock } = gate();
  const waits = Array.from({ length: 7 }, () => g.arrived());
  assert.deepEqual(waits.slice(0, 5), [0, 0, 0, 0, 0], "the burst");
  assert.equal(waits[5], 100, "then one message every 100 ms (10/s)");
  assert.equal(waits[6], 200);
  clock.advance(1_000);
  assert.equal(g.arrived(), 0, "a quiet second refills the bucket");
});
