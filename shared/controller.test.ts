import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "./clock.ts";
import { Controller, type ReconcileResult, TerminalError } from "./controller.ts";
import { silentLogger } from "./logger.ts";
import { ExponentialBackoffLimiter } from "./rate-limiter.ts";
import { WorkQueue } from "./work-queue.ts";

function setup(reconcile: (key: string) => Promise<ReconcileResult>) {
  const clock = new FakeClock();
  const queue = new WorkQueue({ clock, limiter: new ExponentialBackoffLimiter(10, 1000) });
  const c = new Controller({ name: "t", reconcile, queue, log: silentLogger() });
  return { clock, queue, c };
}

describe("Controller retry policy", () => {
  const cases: { name: string; outcome: () => Promise<ReconcileResult>; wantQueuedAt: number | undefined; wantRetries: number }[] = [
    { name: "success forgets the key", outcome: async () => undefined, wantQueuedAt: undefined, wantRetries: 0 },
    { name: "an error requeues with backoff", outcome: async () => { throw new Error("boom"); }, wantQueuedAt: 10, wantRetries: 1 },
    { name: "a terminal error does not requeue", outcome: async () => { throw new TerminalError("bad spec"); }, wantQueuedAt: undefined, wantRetries: 0 },
    { name: "requeueAfter requeues at that time", outcome: async () => ({ requeueAfterMs: 250 }), wantQueuedAt: 250, wantRetries: 0 },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const { clock, queue, c: ctl } = setup(c.outcome);
      await ctl.process("k");
      assert.equal(queue.numRequeues("k"), c.wantRetries);
      if (c.wantQueuedAt === undefined) {
        clock.advance(100_000);
        assert.equal(queue.length, 0);
      } else {
        clock.advance(c.wantQueuedAt - 1);
        assert.equal(queue.length, 0);
        clock.advance(1);
        assert.equal(queue.length, 1);
      }
    });
  }

  it("runs keys through workers and drains on stop", async () => {
    const seen: string[] = [];
    const { c } = setup(async (k) => {
      seen.push(k);
      return undefined;
    });
    c.start();
    c.enqueue("a");
    c.enqueue("b");
    c.enqueue("a");
    await new Promise((r) => setImmediate(r));
    await c.stop();
    assert.deepEqual(seen.sort(), ["a", "a", "b"], "a was added again while it ran, so it ran once more");
  });
});
