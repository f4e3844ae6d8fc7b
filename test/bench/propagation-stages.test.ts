import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { stageFigures } from "./propagation-stages.ts";

describe("stageFigures", () => {
  it("gives each stage's delays per template and when each stage ended", () => {
    const s = (n: number) => n * 1000;
    const f = stageFigures({
      templates: new Map([["a", s(100)], ["b", s(101)], ["c", s(102)]]),
      bindings: new Map([["a", s(100)], ["b", s(103)], ["c", s(104)]]),
      members: new Map([["a", s(101)], ["b", s(103)]]),
    });
    assert.deepEqual(f.toBinding, [2, 2, 2]);
    assert.deepEqual(f.toMembers, [0, 1, 1], "c has no member copy: left out");
    assert.equal(f.lastTemplate, 2);
    assert.equal(f.lastBinding, 4);
    assert.equal(f.lastMember, 3);
  });
});
