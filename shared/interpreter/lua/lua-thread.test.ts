// The Lua thread's pieces that hold no VM: the call slot's wait, the answer, a missing entry.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Worker } from "node:worker_threads";
import { answer, awaitReply, DONE, REPLY, slotValue, STARTED, ThreadedLua } from "./lua-thread.ts";
import { LuaScriptError } from "./vm.ts";

describe("awaitReply", () => {
  const slots = (reply: number) => {
    const signal = new Int32Array(new SharedArrayBuffer(8));
    const startedAt = new Float64Array(new SharedArrayBuffer(8));
    Atomics.store(signal, REPLY, reply);
    return { signal, startedAt };
  };
  it("is done at once when the slot holds the request's DONE", () => {
    const { signal, startedAt } = slots(slotValue(3, DONE));
    assert.equal(awaitReply(signal, startedAt, 3, Date.now(), 1000, 1000), "done");
  });
  it("an earlier request's DONE is no answer: not begun within the start limit", () => {
    const { signal, startedAt } = slots(slotValue(2, DONE));
    const started = Date.now();
    assert.equal(awaitReply(signal, startedAt, 3, started, 100, 1000), "not-started");
    assert.ok(Date.now() - started >= 99);
  });
  it("begun and not finished within the hard limit of its start: ended, however long ago it was posted", () => {
    const { signal, startedAt } = slots(slotValue(3, STARTED));
    startedAt[0] = Date.now();
    const t0 = Date.now();
    assert.equal(awaitReply(signal, startedAt, 3, t0 - 60_000, 10_000, 150), "ended");
    assert.ok(Date.now() - t0 >= 149 && Date.now() - t0 < 2000);
  });
  it("a late wake-up with an earlier value sends it back to wait; a silent STARTED is read at the next wake; DONE ends the wait", () => {
    const { signal, startedAt } = slots(slotValue(1, STARTED));
    // Another thread: the earlier request's DONE (with a wake-up), this request's STARTED (silent), then its DONE.
    const source = `const { workerData } = require("node:worker_threads"); const [s, t] = workerData;
      setTimeout(() => { Atomics.store(s, 0, ${slotValue(1, DONE)}); Atomics.notify(s, 0); }, 20);
      setTimeout(() => { t[0] = Date.now(); Atomics.store(s, 0, ${slotValue(2, STARTED)}); }, 40);
      setTimeout(() => { Atomics.store(s, 0, ${slotValue(2, DONE)}); Atomics.notify(s, 0); }, 120);`;
    const w = new Worker(source, { eval: true, workerData: [signal, startedAt] });
    try {
      assert.equal(awaitReply(signal, startedAt, 2, Date.now(), 5000, 5000), "done");
      assert.equal(Atomics.load(signal, REPLY), slotValue(2, DONE));
    } finally {
      void w.terminate();
    }
  });
});

describe("answer", () => {
  const calls = (f: () => unknown) => ({ call: () => f() as never, check: () => void f() });
  it("gives the results and the prints", () => {
    assert.deepEqual(answer(calls(() => [1, "a"]), { type: "call", script: "", fn: "F", args: [], nret: 2, seq: 1 }, ["hi"]), { ok: true, results: [1, "a"], prints: ["hi"] });
  });
  it("tells a script error from any other", () => {
    assert.deepEqual(answer(calls(() => { throw new LuaScriptError("luaScript:1: boom"); }), { type: "check", script: "", fn: "F", seq: 1 }, []), { ok: false, error: "script", message: "luaScript:1: boom", prints: [] });
    assert.deepEqual(answer(calls(() => { throw new Error("limit"); }), { type: "check", script: "", fn: "F", seq: 1 }, []), { ok: false, error: "error", message: "limit", prints: [] });
  });
});

describe("ThreadedLua without its entry file", () => {
  it("fails each call at once, naming the missing file", () => {
    const lua = new ThreadedLua({ timeoutMs: 200, memoryBytes: 2 ** 20, maxScripts: 10 }, new URL("file:///nonexistent/lua-worker.ts"));
    const started = performance.now();
    assert.throws(() => lua.check("function F() end", "F"), /lua-worker\.ts is missing from this installation/);
    assert.ok(performance.now() - started < 1000);
  });
});
