import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "./clock.ts";
import { ExponentialBackoffLimiter, MaxOfLimiter, TokenBucketLimiter } from "./rate-limiter.ts";
import { WorkQueue } from "./work-queue.ts";

/** Drains every key that is ready now, in order, marking each done. */
async function drain(q: WorkQueue): Promise<string[]> {
  const out: string[] = [];
  while (q.length > 0) {
    const k = (await q.get()) as string;
    out.push(k);
    q.done(k);
  }
  return out;
}

describe("WorkQueue", () => {
  it("hands out waiting keys by priority when given priorityOf, first in first out within one (issue 26)", async () => {
    const priority: Record<string, number> = { urgent: 100, later: -1 };
    const q = new WorkQueue({ clock: new FakeClock(), priorityOf: (k) => priority[k] ?? 0 });
    for (const k of ["later", "a", "urgent", "b"]) q.add(k);
    assert.equal(q.length, 4);
    const got: (string | undefined)[] = [];
    for (let i = 0; i < 4; i++) got.push(await q.get());
    assert.deepEqual(got, ["urgent", "a", "b", "later"]);
  });
  it("coalesces a key added many times while it waits", async () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    for (const k of ["a", "b", "a", "a", "c", "b"]) q.add(k);
    assert.deepEqual(await drain(q), ["a", "b", "c"]);
  });

  it("runs a key added during processing once more, after done", async () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    q.add("a");
    const k = await q.get();
    assert.equal(k, "a");
    q.add("a");
    q.add("a");
    assert.equal(q.length, 0, "not handed out while it is processing");
    q.done("a");
    assert.equal(q.length, 1);
    assert.deepEqual(await drain(q), ["a"]);
  });

  it("never hands the same key to two workers at once", async () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    q.add("a");
    const first = await q.get();
    const second = q.get();
    q.add("a");
    q.add("b");
    assert.equal(await second, "b", "the waiting worker gets b, not a again");
    q.done(first as string);
    assert.equal(await q.get(), "a");
  });

  it("wakes a waiting worker when a key arrives", async () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    const pending = q.get();
    q.add("x");
    assert.equal(await pending, "x");
  });

  it("delays addAfter until the clock reaches it, keeping the earliest of two delays", async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    q.addAfter("a", 100);
    q.addAfter("a", 50);
    q.addAfter("a", 200);
    clock.advance(49);
    assert.equal(q.length, 0);
    clock.advance(1);
    assert.equal(q.length, 1);
    clock.advance(1000);
    assert.deepEqual(await drain(q), ["a"], "the later delays were dropped");
    assert.equal(clock.pending, 0);
  });

  it("backs off retries exponentially per key and forgets on success", async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock, limiter: new ExponentialBackoffLimiter(5, 1000) });
    const delays: number[] = [];
    for (let i = 0; i < 10; i++) {
      const before = clock.now();
      q.addRateLimited("a");
      let waited = 0;
      while (q.length === 0) {
        clock.advance(1);
        waited++;
      }
      delays.push(clock.now() - before);
      assert.ok(waited > 0);
      q.done((await q.get()) as string);
    }
    assert.deepEqual(delays, [5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000]);
    assert.equal(q.numRequeues("a"), 10);
    q.forget("a");
    assert.equal(q.numRequeues("a"), 0);
  });

  it("hands out what is queued after shutDown, then undefined, and waits for in-flight work", async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    q.add("a");
    q.add("b");
    q.addAfter("later", 10);
    const a = await q.get();
    let drained = false;
    const stopped = q.shutDown().then(() => (drained = true));
    q.add("c");
    assert.equal(clock.pending, 0, "delayed keys are dropped");
    assert.equal(await q.get(), "b");
    q.done("b");
    assert.equal(await q.get(), undefined);
    await Promise.resolve();
    assert.equal(drained, false, "a is still in flight");
    q.done(a as string);
    await stopped;
    assert.equal(drained, true);
  });

  it("stays correct over many keys (compaction of consumed slots)", async () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    const keys = Array.from({ length: 5000 }, (_, i) => `k${i}`);
    for (const k of keys) q.add(k);
    for (const k of keys) q.add(k);
    assert.equal(q.length, 5000);
    assert.deepEqual(await drain(q), keys);
  });
});

describe("rate limiters", () => {
  it("token bucket: burst passes at once, then qps spacing, and refills with time", () => {
    const clock = new FakeClock();
    const l = new TokenBucketLimiter(10, 3, clock);
    assert.deepEqual([l.when("a"), l.when("b"), l.when("c")], [0, 0, 0]);
    assert.equal(Math.round(l.when("d")), 100);
    assert.equal(Math.round(l.when("e")), 200);
    clock.advance(10_000);
    assert.equal(l.when("f"), 0);
  });

  it("max-of takes the longest delay of its limiters", () => {
    const clock = new FakeClock();
    const l = new MaxOfLimiter(new ExponentialBackoffLimiter(5, 1_000_000), new TokenBucketLimiter(10, 1, clock));
    assert.equal(l.when("a"), 5);
    assert.equal(Math.round(l.when("a")), 100, "bucket empty: 100 ms beats 10 ms backoff");
    assert.equal(l.retries("a"), 2);
    l.forget("a");
    assert.equal(l.retries("a"), 0);
  });
});
