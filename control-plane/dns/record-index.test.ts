import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DomainRefIndex } from "./record-index.ts";

describe("DomainRefIndex", () => {
  it("finds the records naming a Domain, follows a changed domainRef, forgets deleted records", () => {
    const idx = new DomainRefIndex();
    idx.set("a", "example");
    idx.set("b", "example");
    idx.set("c", "other");
    assert.deepEqual(idx.naming("example").sort(), ["a", "b"]);
    assert.deepEqual(idx.naming("other"), ["c"]);
    assert.deepEqual(idx.naming("none"), []);

    idx.set("b", "other");
    assert.deepEqual(idx.naming("example"), ["a"]);
    assert.deepEqual(idx.naming("other").sort(), ["b", "c"]);

    idx.delete("a");
    idx.delete("never-set");
    assert.deepEqual(idx.naming("example"), []);
  });
});
