import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { mapLimit } from "./map-limit.ts";

const tick = () => new Promise((r) => setImmediate(r));

describe("mapLimit", () => {
  it("keeps the items' order and never has more than the limit in flight", async () => {
    let inFlight = 0;
    let most = 0;
    const out = await mapLimit([5, 1, 4, 2, 3, 0, 6], 3, async (n, i) => {
      inFlight++;
      most = Math.max(most, inFlight);
      for (let k = 0; k < n; k++) await tick();
      inFlight--;
      return `${i}:${n * 10}`;
    });
    assert.deepEqual(out, ["0:50", "1:10", "2:40", "3:20", "4:30", "5:0", "6:60"]);
    assert.equal(most, 3);
  });

  it("handles no items and a limit above their number", async () => {
    assert.deepEqual(await mapLimit([], 4, async () => 1), []);
    assert.deepEqual(await mapLimit([1, 2], 10, async (n) => n * 2), [2, 4]);
  });

  it("rejects with the first error and starts nothing after it", async () => {
    const started: number[] = [];
    await assert.rejects(
      mapLimit([0, 1, 2, 3, 4, 5], 2, async (n) => {
        started.push(n);
        await tick();
        if (n === 1) throw new Error("boom 1");
        return n;
      }),
      /boom 1/,
    );
    assert.ok(!started.includes(4) && !started.includes(5), `started ${started.join(",")}`);
  });

  it("refuses a limit that is not a positive integer", async () => {
    await assert.rejects(mapLimit([1], 0, async (n) => n), /positive integer/);
  });
});
