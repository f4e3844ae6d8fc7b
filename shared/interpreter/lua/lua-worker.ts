// The Lua thread's entry (lua-thread.ts): one InThreadLua, answering one request at a time. It
// blocks on the REQUEST slot rather than its event loop (one wake-up, no event-loop turn), takes
// the request from its port, marks the REPLY slot STARTED with the time, runs it, posts the answer
// and marks the slot DONE, waking the caller.
import { receiveMessageOnPort, workerData } from "node:worker_threads";
import type { Logger } from "pino";
import { InThreadLua } from "./lua-calls.ts";
import { answer, DONE, REPLY, REQUEST, slotValue, STARTED, type LuaRequest, type LuaWorkerData } from "./lua-thread.ts";

const data = workerData as LuaWorkerData;
/** What one call may print: print() goes to the caller's debug log, and a loop of prints must not fill the thread's heap with it. */
const MAX_PRINTS = 100;
let prints: string[] = [];
const logger = { debug: (fields: { output: string }) => prints.length < MAX_PRINTS && prints.push(fields.output) } as unknown as Pick<Logger, "debug">;
const calls = new InThreadLua({ ...data.options, logger });

let last = 0;
for (;;) {
  Atomics.wait(data.signal, REQUEST, last);
  const seq = Atomics.load(data.signal, REQUEST);
  if (seq === last) continue;
  last = seq;
  // Every request the caller posted before its sequence number: the last one is this one.
  let req: LuaRequest | undefined;
  for (let got = receiveMessageOnPort(data.requests); got !== undefined; got = receiveMessageOnPort(data.requests)) req = got.message as LuaRequest;
  if (req === undefined || req.seq !== seq) continue;
  data.startedAt[0] = Date.now();
  Atomics.store(data.signal, REPLY, slotValue(seq, STARTED));
  prints = [];
  data.replies.postMessage(answer(calls, req, prints));
  Atomics.store(data.signal, REPLY, slotValue(seq, DONE));
  Atomics.notify(data.signal, REPLY);
}
