// The environment a customization's script sees: what Karmada's luavm opens (base, table,
// string, math, a safe os) with Lua 5.1's names put back, and nothing that reaches outside the
// VM. Built once per VM by a bootstrap chunk that runs with the full libraries; scripts then run
// in a fresh copy of it per call, so nothing a call defines survives it, and a global a script
// sets to nil (even one named like a builtin, `error = nil`) is nil, as in gopher-lua's single
// global table. The library tables are read-only proxies.

/** Base functions Karmada switches off; calling one is an error, as in Karmada. */
export const DISABLED_FUNCTIONS = [
  "collectgarbage",
  "dofile",
  "getfenv",
  "getmetatable",
  "load",
  "loadfile",
  "loadstring",
  "rawequal",
  "rawget",
  "rawset",
  "setfenv",
  "setmetatable",
  "module",
  "newproxy",
] as const;

/**
 * The bootstrap chunk. Arguments: print, require, fatal (true once the call's time or memory
 * limit was hit) and the byte limit for one string operation. Returns the environment, which
 * each call gets a fresh copy of.
 */
export const BOOTSTRAP = `
local print_, require_, fatal, maxBytes = ...
local S = {}
for _, k in ipairs({"assert", "error", "ipairs", "next", "pairs", "select", "tonumber", "tostring", "type"}) do S[k] = _G[k] end
S._VERSION = "Lua 5.1"
S.print = print_
S.require = require_
S.unpack = table.unpack

-- A limit hit inside a script's own pcall must still end the call.
local pcall_, xpcall_, pack, unpack, error_ = pcall, xpcall, table.pack, table.unpack, error
local function rethrowIfFatal(r)
  if fatal() then error_(r[2], 0) end
  return unpack(r, 1, r.n)
end
S.pcall = function(f, ...) return rethrowIfFatal(pack(pcall_(f, ...))) end
S.xpcall = function(f, h, ...) return rethrowIfFatal(pack(xpcall_(f, h, ...))) end

for _, name in ipairs({${DISABLED_FUNCTIONS.map((n) => `"${n}"`).join(", ")}}) do
  S[name] = function() error_("call function " .. name .. " is not supported in a resource interpreter customization", 2) end
end

-- string: the real library is changed in place, because ("x"):sub() reaches it through the
-- string metatable. As Karmada's safe string library: string.rep is refused, and the functions
-- that scan a string refuse one (or a pattern) over 1,000,000 bytes.
local MAX_INPUT = 1000000
local function checkInput(s)
  if type(s) == "string" and #s > MAX_INPUT then
    error_("string length " .. #s .. " exceeds the maximum allowed input string length " .. MAX_INPUT .. " in the Lua string library, please check your lua script.", 3)
  end
end
for _, name in ipairs({"byte", "find", "format", "gmatch", "lower", "match", "reverse", "sub", "upper"}) do
  local f = string[name]
  local patterned = name == "find" or name == "gmatch" or name == "match"
  string[name] = function(s, p, ...)
    checkInput(s)
    if patterned then checkInput(p) end
    return f(s, p, ...)
  end
end
local gsub = string.gsub
string.gsub = function(s, pattern, repl, n)
  checkInput(s)
  checkInput(pattern)
  if type(repl) == "string" and #repl > 1 and #tostring(s) * #repl > maxBytes then
    error_("string.gsub: the result could exceed the memory limit", 2)
  end
  return gsub(s, pattern, repl, n)
end
string.rep = function() error_("call function string.rep is not supported in a resource interpreter customization (nor in Karmada's)", 2) end
string.dump = function() error_("call function string.dump is not supported in a resource interpreter customization", 2) end
string.gfind = string.gmatch

table.getn = function(t) return #t end
table.maxn = function(t)
  local max = 0
  for k in pairs(t) do if type(k) == "number" and k > max then max = k end end
  return max
end
math.pow = function(x, y) return x ^ y end
math.mod = math.fmod
math.log10 = function(x) return math.log(x, 10) end
math.ldexp = function(m, e) return m * 2.0 ^ e end
math.frexp = function(x)
  if x == 0 then return 0.0, 0 end
  local e = math.floor(math.log(math.abs(x), 2)) + 1
  local m = x / 2.0 ^ e
  if math.abs(m) >= 1 then m, e = m / 2, e + 1 end
  return m, e
end
math.atan2 = function(y, x) return math.atan(y, x) end
math.cosh = function(x) return (math.exp(x) + math.exp(-x)) / 2 end
math.sinh = function(x) return (math.exp(x) - math.exp(-x)) / 2 end
math.tanh = function(x) return math.sinh(x) / math.cosh(x) end
local os_ = { time = os.time, date = os.date, clock = os.clock, difftime = os.difftime }

local function readonly(lib, name)
  return setmetatable({}, {
    __index = lib,
    __newindex = function() error_("attempt to modify the read-only library '" .. name .. "'", 2) end,
    __metatable = false,
  })
end
S.string = readonly(string, "string")
S.table = readonly(table, "table")
S.math = readonly(math, "math")
S.os = readonly(os_, "os")
return S
`;
