import assert from "node:assert/strict";
import { describe, it, mock } from "node:test";
import { SettleTimer } from "./settle-timer.ts";

describe("SettleTimer", () => {
  it("fires once after a burst settles, never later than maxWait after its first poke, and not after stop", () => {
    mock.timers.enable({ apis: ["setTimeout", "Date"] });
    try {
      const fired: number[] = [];
      const t = new SettleTimer({ quietMs: 100, maxWaitMs: 250, fire: () => fired.push(Date.now()), now: () => Date.now() });
      t.poke();
      mock.timers.tick(50);
      t.poke();
      mock.timers.tick(99);
      assert.deepEqual(fired, [], "still within the quiet time of the last poke");
      mock.timers.tick(1);
      assert.deepEqual(fired, [150], "100 ms after the last poke");
      // A steady drip (a poke every 60 ms from 150) fires 250 ms after the burst's first poke, at 400.
      for (let i = 0; i < 4; i++) {
        t.poke();
        mock.timers.tick(60);
      }
      assert.equal(fired.length, 1, "at 390 the burst has not fired");
      t.poke();
      mock.timers.tick(10);
      assert.equal(fired.length, 2, "at 400 it has, though pokes kept coming");
      t.poke();
      mock.timers.tick(1000);
      assert.equal(fired.length, 3, "the drip's last poke still fires, once");
      t.poke();
      t.stop();
      mock.timers.tick(1000);
      assert.equal(fired.length, 3);
    } finally {
      mock.timers.reset();
    }
  });
});
