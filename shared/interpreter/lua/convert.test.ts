// Values between JavaScript and Lua, both ways, as a script sees them and as Karmada reads a
// script's results back.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { JsonValue } from "./convert.ts";
import { LuaInterpreterRuntime } from "./runtime.ts";

const rt = new LuaInterpreterRuntime();

/** What ReflectStatus(observed) returns when the script returns the Lua expression `expr`. */
function reflect(expr: string, observed: unknown = {}): unknown {
  const script = `function ReflectStatus(observed)\n  return ${expr}\nend`;
  return rt.interpreter({ statusReflection: { luaScript: script } }).reflectStatus?.(observed as never);
}
/** The string a script builds from its input. */
function show(expr: string, observed: unknown = {}): string {
  return (reflect(`{ s = ${expr} }`, observed) as { s: string }).s;
}

// JSON values as the API server sends them: no NaN, no -0, no null inside lists.
const key = fc.string({ unit: "binary", maxLength: 8 });
const scalar = fc.oneof(fc.boolean(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => (Object.is(d, -0) ? 0 : d)), fc.string({ unit: "binary", maxLength: 12 }));
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, scalar, fc.constant(null), tie("list"), tie("object")),
  list: fc.array(fc.oneof({ depthSize: "small" }, scalar, tie("list"), tie("object")), { maxLength: 4 }),
  object: fc.dictionary(key, tie("value"), { maxKeys: 4 }),
})) as { value: fc.Arbitrary<JsonValue>; object: fc.Arbitrary<Record<string, JsonValue>> };

/** Karmada's reading of a result with no reference objects: null fields vanish, nested empty tables are deleted (one pass), an empty whole is {}. */
function model(v: JsonValue): JsonValue {
  const emptyTable = (x: JsonValue): boolean =>
    (Array.isArray(x) && x.length === 0) || (typeof x === "object" && x !== null && !Array.isArray(x) && Object.values(x).every((c) => c === null));
  const walk = (x: JsonValue): JsonValue => {
    if (Array.isArray(x)) return x.filter((c) => !emptyTable(c)).map(walk);
    if (typeof x === "object" && x !== null) {
      const out: Record<string, JsonValue> = {};
      for (const [k, c] of Object.entries(x)) if (c !== null && !emptyTable(c)) Object.defineProperty(out, k, { value: walk(c), enumerable: true, writable: true, configurable: true });
      return out;
    }
    return x;
  };
  return emptyTable(v) ? {} : walk(v);
}

/** The value as a Lua table constructor. */
function luaLiteral(v: JsonValue): string {
  if (v === null) return "nil";
  if (typeof v === "string") return `"${[...new TextEncoder().encode(v)].map((b) => `\\${b}`).join("")}"`;
  if (typeof v === "number") return Number.isInteger(v) && Math.abs(v) < 2 ** 31 ? String(v) : v.toPrecision(17);
  if (typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `{${v.map(luaLiteral).join(", ")}}`;
  return `{${Object.entries(v).map(([k, c]) => `[${luaLiteral(k)}] = ${luaLiteral(c)}`).join(", ")}}`;
}

describe("JSON → Lua → JSON", () => {
  it("an object pushed in and returned as is comes back as Karmada reads it", () => {
    fc.assert(
      fc.property(json.object, (o) => {
        assert.deepEqual(reflect("observed", o), model(o));
      }),
      { numRuns: 300 },
    );
  });
  it("a table built by the script comes back as Karmada reads it", () => {
    fc.assert(
      fc.property(json.object, (o) => {
        assert.deepEqual(reflect(luaLiteral(o)), model(o));
      }),
      { numRuns: 300 },
    );
  });
  it("numbers are gopher-lua's floats: whole ones print as integers, nothing wraps at 2^31", () => {
    const o = { i: 5, big: 2 ** 31, f: 1.5, neg: -3, max: 2 ** 31 - 1 };
    assert.equal(show(`tostring(observed.i) .. " " .. tostring(observed.big) .. " " .. tostring(observed.f) .. " " .. tostring(observed.neg)`, o), "5 2147483648 1.5 -3");
    assert.equal(show(`tostring(observed.max + 1) .. " " .. tostring(observed.i * 1024 * 1024 * 1024) .. " " .. tostring(observed.i % 0)`, o), "2147483648 5368709120 NaN");
    assert.equal(show(`tostring(10 / 2) .. " " .. tostring(3 / 2) .. " " .. tostring(observed.i * 2) .. " " .. string.format("%d", observed.i / 5)`, o), "5 1.5 10 1");
    assert.deepEqual(reflect(`{ half = observed.i / 2, whole = observed.i / 5, big = observed.big + 1 }`, o), { half: 2.5, whole: 1, big: 2 ** 31 + 1 });
  });
  it("non-whole numbers print as gopher-lua prints them (Go's %v), not as Lua 5.3's %.14g", () => {
    const printed = show(`tostring(2 / 3 * 100) .. " " .. (0.1 + 0.2) .. " " .. tostring(1234567.5) .. " " .. tostring(2^53) .. " " .. tostring(1e-5) .. " " .. tostring(1/0) .. " " .. tostring(-1e100) .. " " .. string.format("%s", 0.5)`);
    assert.equal(printed, "66.66666666666666 0.30000000000000004 1.2345675e+06 9007199254740992 1e-05 +Inf -1e+100 0.5");
  });
  it("null in a list is skipped, as gopher-lua's Append skips nil", () => {
    assert.deepEqual(reflect(`{ l = observed.l, n = #observed.l }`, { l: [null, "a", null, "b"] }), { l: ["a", "b"], n: 2 });
  });
  it("null in an object is nil in Lua", () => {
    assert.equal(show(`tostring(observed.a == nil) .. tostring(observed.b)`, { a: null, b: 1 }), "true1");
  });
  it("a list's element order, and its length, survive", () => {
    assert.equal(show(`#observed.l .. ":" .. table.concat(observed.l, ",")`, { l: ["a", "b", "c"] }), "3:a,b,c");
  });
});

describe("Lua results Karmada refuses", () => {
  const refuses = (expr: string, message: RegExp) => assert.throws(() => reflect(expr), (e: Error) => e.name === "InterpreterError" && message.test(e.message));
  it("mixed keys", () => refuses(`{ 1, a = 2 }`, /cannot encode mixed or invalid key types/));
  it("a sparse list", () => refuses(`{ [1] = 1, [3] = 3 }`, /cannot encode sparse array/));
  it("a table that appears twice", () => refuses(`(function() local t = { x = 1 } return { a = t, b = t } end)()`, /recursively nested/));
  it("a function", () => refuses(`{ f = print }`, /cannot encode function to JSON/));
  it("NaN", () => refuses(`{ n = 0/0 }`, /unsupported value: NaN/));
  it("a boolean key", () => refuses(`{ [true] = 1 }`, /mixed or invalid key types/));
});

describe("pairs() in gopher-lua's order", () => {
  it("keys come in insertion order; a deleted key set again keeps its place", () => {
    assert.equal(show(`(function() local t = {} t.c = 1 t.a = 2 t.b = 3 t.a = nil t.d = 4 t.a = 5 local o = {} for k in pairs(t) do o[#o + 1] = k end return table.concat(o) end)()`), "cabd");
  });
  it("integer keys come first, in ascending order, then the other keys", () => {
    assert.equal(show(`(function() local t = {} t.x = 1 t[5] = "e" t[2] = "b" t.y = 2 t[1] = "a" local o = {} for k in pairs(t) do o[#o + 1] = tostring(k) end return table.concat(o, " ") end)()`), "1 2 5 x y");
  });
  it("a key deleted during traversal does not stop it", () => {
    assert.equal(show(`(function() local t = { a = 1, b = 2, c = 3 } local n = 0 for k in pairs(t) do t[k] = nil n = n + 1 end return n .. tostring(next(t)) end)()`), "3nil");
  });
  it("any sequence of sets and deletes iterates, and has a length, as gopher-lua's table does", () => {
    // gopher-lua's LTable: integer keys 1..2^26 in an array part walked first in ascending order
    // (a nil set keeps the slot), other keys in a list in first-insertion order (never removed).
    const op = fc.record({ key: fc.oneof(fc.constantFrom("a", "b", "c", "d", "e"), fc.integer({ min: 1, max: 12 })), value: fc.option(fc.integer({ min: 0, max: 99 }), { nil: null }) });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const array: (number | null)[] = [];
        const keys: string[] = [];
        const dict = new Map<string, number>();
        for (const { key, value } of ops) {
          if (typeof key === "number") {
            while (array.length < key - 1) array.push(null);
            array[key - 1] = value;
          } else if (value === null) dict.delete(key);
          else {
            dict.set(key, value);
            if (!keys.includes(key)) keys.push(key);
          }
        }
        const expected = [
          ...array.flatMap((v, i) => (v === null ? [] : [`${i + 1}=${v}`])),
          ...keys.flatMap((k) => (dict.has(k) ? [`${k}=${dict.get(k)}`] : [])),
        ].join(" ");
        const length = array.reduce((n: number, v, i) => (v === null ? n : i + 1), 0);
        const body = ops.map(({ key, value }) => `t[${typeof key === "number" ? key : `"${key}"`}] = ${value ?? "nil"}`).join(" ");
        assert.equal(show(`(function() local t = {} ${body} local o = {} for k, v in pairs(t) do o[#o + 1] = k .. "=" .. v end return table.concat(o, " ") .. " #" .. #t end)()`), `${expected} #${length}`);
      }),
      { numRuns: 300 },
    );
  });
  it("#t is the highest integer key holding a value, as gopher-lua's array part gives it", () => {
    assert.equal(show(`(function() local a = { 1, nil, 3 } local b = {} b[5] = "x" local c = { 1, 2, 3 } c[3] = nil local d = { 1, 2, x = 1 } return #a .. #b .. #c .. #d end)()`), "3522");
  });
  it("the same script gives the same order every time", () => {
    const expr = `(function() local t = {} for i = 1, 50 do t["k" .. (i * 7919 % 101)] = i end local o = {} for k in pairs(t) do o[#o + 1] = k end return table.concat(o, ",") end)()`;
    const first = show(expr);
    for (let i = 0; i < 5; i++) assert.equal(show(expr), first);
    assert.ok(first.startsWith("k41,k82,k22,"), first);
  });
});
