import assert from "node:assert/strict";
import { describe, it, mock } from "node:test";
import { ClusterTimers } from "./cluster-timers.ts";

describe("ClusterTimers", () => {
  it("fires once per cluster, at the earliest time asked for since it last fired", () => {
    mock.timers.enable({ apis: ["setTimeout", "Date"] });
    try {
      const fired: string[] = [];
      const t = new ClusterTimers((c) => fired.push(c));
      t.after("member1", 1000);
      t.after("member1", 5000); // later: the earlier one stands
      t.after("member2", 3000);
      t.after("member2", 2000); // earlier: replaces it
      mock.timers.tick(999);
      assert.deepEqual(fired, []);
      mock.timers.tick(1);
      assert.deepEqual(fired, ["member1"]);
      mock.timers.tick(1000);
      assert.deepEqual(fired, ["member1", "member2"]);
      mock.timers.tick(10_000);
      assert.deepEqual(fired, ["member1", "member2"], "nothing fires twice");
      t.after("member1", 100);
      t.clear();
      mock.timers.tick(1000);
      assert.deepEqual(fired, ["member1", "member2"], "clear cancels what is pending");
    } finally {
      mock.timers.reset();
    }
  });
});
