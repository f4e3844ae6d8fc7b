import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canonicalJson, contentHash } from "./content-hash.ts";

describe("canonicalJson", () => {
  const cases: { name: string; value: unknown; want: string }[] = [
    { name: "sorts object keys", value: { b: 1, a: 2, c: 3 }, want: '{"a":2,"b":1,"c":3}' },
    {
      name: "sorts keys at every depth, inside arrays too",
      value: { z: { y: 1, x: [{ q: 1, p: 2 }] }, a: null },
      want: '{"a":null,"z":{"x":[{"p":2,"q":1}],"y":1}}',
    },
    { name: "keeps array order", value: [3, 1, 2], want: "[3,1,2]" },
    { name: "drops undefined object members", value: { a: undefined, b: 1 }, want: '{"b":1}' },
    { name: "writes undefined array items as null, like JSON", value: [1, undefined], want: "[1,null]" },
    { name: "writes empty object and array", value: { a: {}, b: [] }, want: '{"a":{},"b":[]}' },
    { name: "escapes strings and keys as JSON does", value: { 'k"\n': 'v"\\' }, want: '{"k\\"\\n":"v\\"\\\\"}' },
    { name: "writes scalars", value: [true, false, 0, -1.5, "s"], want: '[true,false,0,-1.5,"s"]' },
    { name: "writes non-finite numbers as null, like JSON", value: [NaN, Infinity], want: "[null,null]" },
    { name: "uses toJSON, so a Date is its ISO string", value: { t: new Date(0) }, want: '{"t":"1970-01-01T00:00:00.000Z"}' },
    { name: "writes a top-level string", value: "x", want: '"x"' },
    { name: "writes a top-level null", value: null, want: "null" },
  ];
  for (const c of cases) it(c.name, () => assert.equal(canonicalJson(c.value), c.want));

  const shared = { a: 1 };
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const errors: { name: string; value: unknown }[] = [
    { name: "refuses a top-level undefined", value: undefined },
    { name: "refuses a bigint", value: { n: 1n } },
    { name: "refuses a cyclic value", value: cyclic },
  ];
  for (const c of errors) it(c.name, () => assert.throws(() => canonicalJson(c.value), TypeError));

  it("accepts the same object twice in one value (not a cycle)", () => {
    assert.equal(canonicalJson([shared, shared]), '[{"a":1},{"a":1}]');
  });
});

describe("contentHash", () => {
  const cases: { name: string; a: unknown; b: unknown; same: boolean }[] = [
    { name: "same object with keys in a different order hashes the same", a: { x: 1, y: { p: 1, q: 2 } }, b: { y: { q: 2, p: 1 }, x: 1 }, same: true },
    { name: "an undefined member hashes as if absent", a: { x: 1, y: undefined }, b: { x: 1 }, same: true },
    { name: "a changed value hashes differently", a: { x: 1 }, b: { x: 2 }, same: false },
    { name: "array order matters", a: [1, 2], b: [2, 1], same: false },
    { name: "a string and a number differ", a: { x: "1" }, b: { x: 1 }, same: false },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(contentHash(c.a) === contentHash(c.b), c.same));
  }

  it("is 32 lowercase hex chars: the head of sha256 of the canonical JSON", () => {
    // sha256('{"a":1}') = 015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862
    assert.equal(contentHash({ a: 1 }), "015abd7f5cc57a2dd94b7590f04ad808");
  });
});
