import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { memoryParts, partsLine, perConnection } from "./hub-floor-figures.ts";

const MiB = 1024 * 1024;

describe("bench:hub-floor figures", () => {
  it("the rest is what RSS holds beyond V8's heap and external memory", () => {
    assert.deepEqual(memoryParts({ rss: 100 * MiB, heapTotal: 40 * MiB, heapUsed: 30 * MiB, external: 10 * MiB }), { rss: 100 * MiB, heapUsed: 30 * MiB, heapTotal: 40 * MiB, external: 10 * MiB, rest: 50 * MiB });
  });
  it("each connection's share of every part's growth", () => {
    const before = memoryParts({ rss: 100 * MiB, heapTotal: 40 * MiB, heapUsed: 30 * MiB, external: 10 * MiB });
    const after = memoryParts({ rss: 300 * MiB, heapTotal: 90 * MiB, heapUsed: 70 * MiB, external: 10 * MiB });
    const per = perConnection(before, after, 1024);
    assert.deepEqual(per, { rss: 200 * 1024, heapUsed: 40 * 1024, heapTotal: 50 * 1024, external: 0, rest: 150 * 1024 });
    assert.equal(partsLine(per!, "KiB"), "RSS 200.0 KiB: V8 heap 40.0 KiB used of 50.0 KiB, external 0.0 KiB, the rest 150.0 KiB");
  });
  it("no connections: no share", () => {
    const p = memoryParts({ rss: 1, heapTotal: 1, heapUsed: 1, external: 0 });
    assert.equal(perConnection(p, p, 0), undefined);
  });
});
