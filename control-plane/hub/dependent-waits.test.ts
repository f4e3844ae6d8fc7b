import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DependentWaits } from "./dependent-waits.ts";

describe("DependentWaits", () => {
  it("files a removal under the workload it waits for, both ways, and lets it go", () => {
    const w = new DependentWaits();
    assert.equal(w.park("conf", "web"), true);
    assert.equal(w.park("token", "web"), true);
    assert.deepEqual(w.waitingOn("web").sort(), ["conf", "token"]);
    assert.equal(w.of("conf"), "web");
    w.park("conf", "api");
    assert.deepEqual(w.waitingOn("web"), ["token"], "moved to another workload");
    w.release("token");
    assert.deepEqual(w.waitingOn("web"), []);
    assert.deepEqual(w.keys(), ["conf"]);
  });

  const cycles: { name: string; parked: [string, string][]; key: string; workload: string }[] = [
    { name: "a template that refers to itself", parked: [], key: "a", workload: "a" },
    { name: "two that refer to each other", parked: [["b", "a"]], key: "a", workload: "b" },
    { name: "a longer ring", parked: [["b", "a"], ["c", "b"]], key: "a", workload: "c" },
  ];
  for (const c of cycles) {
    it(`never waits in a cycle: ${c.name}`, () => {
      const w = new DependentWaits();
      for (const [k, x] of c.parked) w.park(k, x);
      assert.equal(w.park(c.key, c.workload), false);
      assert.equal(w.of(c.key), undefined);
    });
  }

  it("what waits behind held workloads, through others too (a chain of dependencies)", () => {
    const w = new DependentWaits();
    w.park("b", "a");
    w.park("c", "b");
    w.park("x", "y");
    assert.deepEqual(w.behind(["a"]).sort(), ["b", "c"]);
  });

  it("remembers the workloads a person kept until they are given again", () => {
    const w = new DependentWaits();
    w.keep("web");
    assert.equal(w.isKept("web"), true);
    w.unkeep("web");
    assert.equal(w.isKept("web"), false);
  });
});
