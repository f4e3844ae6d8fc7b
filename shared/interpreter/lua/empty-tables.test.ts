import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JsonValue } from "./convert.ts";
import { fixEmptyTables } from "./empty-tables.ts";

describe("empty tables in a script's result, as Karmada fixes them", () => {
  it("a whole empty result is {} for an object target and [] for a list", () => {
    assert.deepEqual(fixEmptyTables([], "object", []), {});
    assert.deepEqual(fixEmptyTables([], "list", []), []);
  });
  it("a field that was {} in a reference becomes {}, one that was [] stays, others go", () => {
    const result = { spec: { a: [], b: [], c: [], d: { e: [] }, keep: ["x"] } };
    const refs = [{ spec: { a: {} } }, { spec: { b: [], d: { e: {} } } }];
    assert.deepEqual(fixEmptyTables(result, "object", refs), { spec: { a: {}, b: [], d: { e: {} }, keep: ["x"] } });
  });
  it("list indices are dropped from paths", () => {
    const result: JsonValue = { rules: [{ names: [] }, { names: [], other: [] }] };
    assert.deepEqual(fixEmptyTables(result, "object", [{ rules: [{ names: {} }] }]), { rules: [{ names: {} }, { names: {} }] });
  });
  it("without references every nested empty table is deleted, a list element included", () => {
    assert.deepEqual(fixEmptyTables({ status: { conditions: [], n: 1, l: [[], 2] } }, "object", []), { status: { n: 1, l: [2] } });
  });
  it("an object emptied by the fix stays as {}, as Karmada's single pass leaves it", () => {
    assert.deepEqual(fixEmptyTables({ a: { b: [] } }, "object", []), { a: {} });
  });
});
