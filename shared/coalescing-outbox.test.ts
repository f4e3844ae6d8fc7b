import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CoalescingOutbox } from "./coalescing-outbox.ts";

describe("CoalescingOutbox", () => {
  it("sends at once while the stream has room", () => {
    const sent: string[] = [];
    const o = new CoalescingOutbox((k) => (sent.push(k), true));
    o.mark("a");
    o.mark("b");
    assert.deepEqual(sent, ["a", "b"]);
  });

  it("holds one entry per key while the stream is full, and sends each once after drain", () => {
    const sent: string[] = [];
    let room = false;
    const o = new CoalescingOutbox((k) => (sent.push(k), room));
    o.mark("a"); // written, then the stream reports it is full
    for (let i = 0; i < 1000; i++) {
      o.mark("b");
      o.mark("c");
    }
    assert.deepEqual(sent, ["a"]);
    assert.equal(o.size, 2, "a thousand updates of two keys take two entries");
    room = true;
    o.drained();
    assert.deepEqual(sent, ["a", "b", "c"]);
    assert.equal(o.size, 0);
  });

  it("sends nothing after close", () => {
    const sent: string[] = [];
    const o = new CoalescingOutbox((k) => (sent.push(k), true));
    o.close();
    o.mark("a");
    assert.deepEqual(sent, []);
  });
});
