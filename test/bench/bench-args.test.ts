import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { envPairs, positiveInt, words } from "./bench-args.ts";

describe("bench args", () => {
  it("positive integers, or an error naming the flag", () => {
    assert.equal(positiveInt("agents", "5000"), 5000);
    for (const bad of ["0", "-1", "1.5", "x", undefined]) assert.throws(() => positiveInt("agents", bad), /--agents wants a positive integer/);
  });
  it("words of a space-separated value", () => {
    assert.deepEqual(words("--a  --b=1 "), ["--a", "--b=1"]);
    assert.deepEqual(words(""), []);
    assert.deepEqual(words(undefined), []);
  });
  it("K=V pairs, a value may hold '='; a word without a name is refused", () => {
    assert.deepEqual(envPairs("server-env", "MALLOC_ARENA_MAX=2 X=a=b"), { MALLOC_ARENA_MAX: "2", X: "a=b" });
    assert.deepEqual(envPairs("server-env", ""), {});
    assert.throws(() => envPairs("server-env", "NOEQUALS"), /--server-env wants K=V pairs, not NOEQUALS/);
    assert.throws(() => envPairs("server-env", "=v"), /not =v/);
  });
});
