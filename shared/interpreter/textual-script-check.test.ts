import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { textualScriptCheck } from "./textual-script-check.ts";

describe("textualScriptCheck: the stand-in until the Lua runtime (finds the function, not syntax errors)", () => {
  const cases: { name: string; script: string; ok: boolean }[] = [
    { name: "function Name(", script: "function InterpretHealth(observedObj)\n  return true\nend", ok: true },
    { name: "a space before the parenthesis (Karmada's own example)", script: "function InterpretHealth (observedObj) return true end", ok: true },
    { name: "after require of kube", script: 'local kube = require("kube")\nfunction InterpretHealth(o) return true end', ok: true },
    { name: "Name = function(", script: "InterpretHealth = function(o) return true end", ok: true },
    { name: "a misspelt name", script: "function InterpretHealthy(o) return true end", ok: false },
    { name: "a local function (not global)", script: "local function InterpretHealth(o) return true end", ok: false },
    { name: "a method of a table", script: "function M.InterpretHealth(o) return true end", ok: false },
    { name: "only in a line comment", script: "-- function InterpretHealth(o)\nreturn true", ok: false },
    { name: "only in a long comment", script: "--[[\nfunction InterpretHealth(o) return true end\n]]", ok: false },
    { name: "only in a long comment with level", script: "--[==[ function InterpretHealth(o) ]==]", ok: false },
    { name: "an empty script", script: "", ok: false },
  ];
  for (const c of cases) {
    it(`${c.ok ? "accepts" : "refuses"} ${c.name}`, () => {
      const got = textualScriptCheck(c.script, "InterpretHealth");
      if (c.ok) assert.equal(got, undefined);
      else assert.match(got ?? "", /^InterpretHealth is not defined as a global function/);
    });
  }
});
