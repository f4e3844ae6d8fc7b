import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ResourceBinding } from "../../shared/api/types.ts";
import { BindingsAhead, MAX_AHEAD_MS, showsWrite } from "./bindings-ahead.ts";

const binding = (resourceVersion?: string) =>
  ({ apiVersion: "flotilla.dev/v1alpha1", kind: "ResourceBinding", metadata: { name: "web-deployment", namespace: "default", ...(resourceVersion === undefined ? {} : { resourceVersion }) }, spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, clusters: [{ name: "m1" }] } }) as ResourceBinding;

describe("BindingsAhead", () => {
  it("holds a binding from its write until the informer shows that write; a failed write tells the listeners again", () => {
    const ahead = new BindingsAhead(() => 0);
    const heard: string[] = [];
    ahead.onChange((k) => heard.push(k));
    const w = ahead.writing("k", binding());
    assert.equal(ahead.get("k")?.metadata.name, "web-deployment");
    assert.deepEqual(heard, ["k"], "the Works render at once");
    ahead.landed("k", binding("5"));
    assert.ok(ahead.get("k") !== undefined, "before the write answered, no event is known to be its own");
    ahead.written("k", w, "7", undefined);
    ahead.landed("k", binding("6"));
    assert.ok(ahead.get("k") !== undefined, "an older write's event (this leader's or the last one's) ends nothing");
    ahead.landed("k", binding("7"));
    assert.equal(ahead.get("k"), undefined, "its own write's event ends it");
    assert.deepEqual(heard, ["k"], "the informer's own event renders them next");
    const w2 = ahead.writing("k", binding());
    ahead.failed("k", w2);
    assert.equal(ahead.get("k"), undefined);
    assert.deepEqual(heard, ["k", "k", "k"], "a failed write renders them again from the informer");
  });

  it("a later write of the same key replaces the entry; the earlier write's failure leaves it", () => {
    const ahead = new BindingsAhead(() => 0);
    const w1 = ahead.writing("k", binding());
    const w2 = ahead.writing("k", binding());
    ahead.failed("k", w1);
    assert.ok(ahead.get("k") !== undefined);
    ahead.written("k", w1, "3", undefined);
    ahead.landed("k", binding("3"));
    assert.ok(ahead.get("k") !== undefined, "w1's version is not this entry's");
    ahead.written("k", w2, "4", undefined);
    ahead.landed("k", binding("9"));
    assert.equal(ahead.get("k"), undefined, "a later version shows it too");
  });

  it("the informer showed the write before its answer came: the answer ends it", () => {
    const ahead = new BindingsAhead(() => 0);
    const w = ahead.writing("k", binding());
    ahead.landed("k", binding("7")); // the watch event, before the answer: not known to be this write's yet
    assert.ok(ahead.get("k") !== undefined);
    ahead.written("k", w, "7", binding("7"));
    assert.equal(ahead.get("k"), undefined, "else it would rule, and keep the hub from judging, until it expired");
  });

  it("a write whose watch event never came is rendered from no longer than MAX_AHEAD_MS, and its expiry is told", () => {
    let now = 0;
    const ahead = new BindingsAhead(() => now);
    const heard: string[] = [];
    ahead.writing("k", binding());
    ahead.onChange((k) => heard.push(k));
    now = MAX_AHEAD_MS;
    assert.ok(ahead.get("k") !== undefined);
    now = MAX_AHEAD_MS + 1;
    assert.equal(ahead.get("k"), undefined);
    assert.deepEqual(heard, ["k"]);
  });

  it("tells the end listeners of every way an entry ends, after the current handlers, but not of a newer write taking its place", async () => {
    let now = 0;
    const ahead = new BindingsAhead(() => now);
    const ended: string[] = [];
    ahead.onEnd((k) => ended.push(k));
    const tick = () => new Promise((r) => setImmediate(r));
    // The informer's event of the write (the hub judged on the informer's copy meanwhile).
    const w1 = ahead.writing("landed", binding());
    ahead.written("landed", w1, "7", undefined);
    ahead.landed("landed", binding("7"));
    assert.equal(ended.length, 0, "not inside the informer's handler: the other handlers have not seen the event yet");
    await tick();
    assert.deepEqual(ended, ["landed"]);
    // The event came before the answer.
    const w2 = ahead.writing("answered", binding());
    ahead.written("answered", w2, "8", binding("8"));
    // The write failed.
    const w3 = ahead.writing("failed", binding());
    ahead.failed("failed", w3);
    // Expired.
    ahead.writing("expired", binding());
    now = MAX_AHEAD_MS + 1;
    ahead.get("expired");
    now = 0;
    // Replaced by a newer write of the key: still ahead, nothing ended.
    ahead.writing("replaced", binding());
    ahead.writing("replaced", binding());
    await tick();
    assert.deepEqual([...ended].sort(), ["answered", "expired", "failed", "landed"]);
    // Ended, then ahead again before the listeners ran: the newer entry's end tells.
    const w4 = ahead.writing("again", binding());
    ahead.written("again", w4, "9", binding("9"));
    ahead.writing("again", binding());
    await tick();
    assert.ok(!ended.includes("again"), "ahead again: its absences are still kept");
  });

  const versions: [string | undefined, string, boolean][] = [
    ["7", "7", true],
    ["10", "9", true],
    ["9", "10", false],
    [undefined, "1", false],
    ["abc", "abc", true],
    ["abd", "abc", false],
  ];
  for (const [seen, written, shows] of versions) it(`showsWrite(${seen}, ${written}) = ${shows}`, () => assert.equal(showsWrite(seen, written), shows));
});
