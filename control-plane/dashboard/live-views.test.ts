import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LiveViews } from "./live-views.ts";

describe("LiveViews", () => {
  it("computes each subscribed view once per flush and sends only what changed", () => {
    const state: Record<string, number> = { overview: 1, clusters: 1 };
    const live = new LiveViews({ compute: (v) => ({ v, n: state[v] }) });
    const got: string[][] = [[], [], []];
    live.subscribe("overview", { send: (d) => (got[0]?.push(d), true) });
    live.subscribe("overview", { send: (d) => (got[1]?.push(d), true) });
    live.subscribe("clusters", { send: (d) => (got[2]?.push(d), true) });
    assert.deepEqual(got.map((g) => g.length), [1, 1, 1], "each gets the view at once");
    const before = live.computations;
    live.flush();
    assert.equal(live.computations - before, 2, "one computation per distinct view");
    assert.deepEqual(got.map((g) => g.length), [1, 1, 1], "nothing changed, nothing sent");
    state.overview = 2;
    live.flush();
    assert.deepEqual(got.map((g) => g.length), [2, 2, 1]);
    assert.deepEqual(JSON.parse(got[0]?.[1] ?? ""), { view: { v: "overview", n: 2 } });
    live.stop();
  });

  it("skips a subscriber whose buffer is full until it drains, then sends only the latest", () => {
    let n = 0;
    const live = new LiveViews({ compute: () => n });
    const sent: string[] = [];
    let full = true;
    const s = live.subscribe("overview", { send: (d) => (sent.push(d), !full) });
    assert.equal(sent.length, 1);
    n = 1;
    live.flush();
    n = 2;
    live.flush();
    assert.equal(sent.length, 1, "blocked: nothing more written");
    full = false;
    s?.drained();
    assert.deepEqual(sent.map((d) => JSON.parse(d).view), [0, 2]);
    live.stop();
  });

  it("refuses subscribers past the limit; ended ones free their place; a failing view is an error message", () => {
    const live = new LiveViews({ compute: (v) => { if (v === "bad") throw new Error("no such template"); return 1; }, maxSubscribers: 1 });
    const msgs: string[] = [];
    const a = live.subscribe("bad", { send: (d) => (msgs.push(d), true) });
    assert.deepEqual(JSON.parse(msgs[0] ?? ""), { error: "no such template" });
    assert.equal(live.subscribe("x", { send: () => true }), undefined);
    a?.end();
    assert.notEqual(live.subscribe("x", { send: () => true }), undefined);
    live.stop();
  });

  it("coalesces a burst of changes into one flush after the quiet spell", async () => {
    let n = 0;
    const live = new LiveViews({ compute: () => n, quietMs: 20 });
    const sent: string[] = [];
    live.subscribe("o", { send: (d) => (sent.push(d), true) });
    const before = live.computations;
    for (let i = 0; i < 50; i++) {
      n = i;
      live.changed();
    }
    await new Promise((r) => setTimeout(r, 80));
    assert.equal(live.computations - before, 1);
    assert.deepEqual(sent.map((d) => JSON.parse(d).view), [0, 49]);
    live.stop();
  });
});
