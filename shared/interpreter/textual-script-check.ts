// A stand-in ScriptChecker until the Lua runtime (shared/interpreter/lua/) provides the real one:
// it reads the script as text and finds whether it defines the operation's global function
// (`function Name(` or `Name = function`, outside comments). It compiles nothing, so it finds no
// syntax error; it only catches the missing or misspelt function. Wired in control-plane.ts.
import type { ScriptChecker } from "./customization-check.ts";

/** Long comments (`--[[ ]]`, `--[==[ ]==]`), then line comments. Strings holding `--` are not told apart. */
function withoutComments(script: string): string {
  return script.replace(/--\[(=*)\[[\s\S]*?\]\1\]/g, " ").replace(/--[^\n]*/g, " ");
}

/** The textual stand-in: "<name> is not defined as a global function" when no definition is found. */
export const textualScriptCheck: ScriptChecker = (script, functionName) => {
  const text = withoutComments(script);
  const name = functionName.replace(/[^A-Za-z0-9_]/g, "");
  const declared = new RegExp(`(^|[^.:\\w])function\\s+${name}\\s*\\(`, "m");
  const assigned = new RegExp(`(^|[^.:\\w])${name}\\s*=\\s*function\\s*\\(`, "m");
  const local = new RegExp(`\\blocal\\s+(function\\s+)?${name}\\b`, "m");
  if ((declared.test(text) || assigned.test(text)) && !local.test(text)) return undefined;
  return `${functionName} is not defined as a global function (the script must define function ${functionName}(...))`;
};
