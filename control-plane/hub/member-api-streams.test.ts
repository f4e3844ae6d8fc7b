import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ControlMessage, MemberApiResponse } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { MEMBER_API_WINDOW } from "../../shared/member-api.ts";
import { type MemberApiCall, type MemberApiSink, MemberApiStreams } from "./member-api-streams.ts";

const call: MemberApiCall = { method: "GET", path: "/api", headers: {}, body: Buffer.alloc(0), user: "alice", role: "admin" };
const frame = (o: Partial<MemberApiResponse>): MemberApiResponse => ({ streamId: 1, status: 0, headers: {}, data: Buffer.alloc(0), end: false, error: "", credit: 0, ...o });

function recorder() {
  const log: string[] = [];
  const sink: MemberApiSink = { head: (s) => log.push(`head ${s}`), data: (c) => log.push(`data ${c.byteLength}`), end: (e) => log.push(`end ${e ?? ""}`) };
  return { log, sink };
}

describe("MemberApiStreams", () => {
  it("sends the request with its window, passes the frames on, and grants the window back in quarters as the caller takes it", () => {
    const sent: ControlMessage[] = [];
    const streams = new MemberApiStreams((m) => sent.push(m), 4);
    const { log, sink } = recorder();
    const h = streams.start(call, sink);
    assert.ok(h);
    assert.equal(sent[0]?.kind?.$case, "memberApiRequest");
    assert.equal(sent[0]?.kind?.$case === "memberApiRequest" && sent[0].kind.value.window, MEMBER_API_WINDOW);
    streams.received(frame({ status: 200, data: Buffer.alloc(10) }));
    h.consumed(MEMBER_API_WINDOW / 8);
    assert.equal(sent.length, 1, "no credit below a quarter window");
    h.consumed(MEMBER_API_WINDOW / 8);
    assert.deepEqual(sent[1], { kind: { $case: "memberApiCredit", value: { streamId: 1, bytes: MEMBER_API_WINDOW / 4 } } });
    streams.received(frame({ data: Buffer.alloc(5), end: true }));
    assert.deepEqual(log, ["head 200", "data 10", "data 5", "end "]);
    assert.equal(streams.inFlight, 0);
  });

  it("ends only the request whose agent sent past its window, and tells the agent to stop it", () => {
    const sent: ControlMessage[] = [];
    const streams = new MemberApiStreams((m) => sent.push(m), 4);
    const a = recorder();
    const b = recorder();
    streams.start(call, a.sink);
    streams.start(call, b.sink);
    streams.received(frame({ streamId: 1, status: 200, data: Buffer.alloc(MEMBER_API_WINDOW) }));
    streams.received(frame({ streamId: 1, data: Buffer.alloc(1) }));
    assert.match(a.log.at(-1) ?? "", /^end the agent sent 1 bytes with 0 left in its window/);
    assert.deepEqual(sent.at(-1), { kind: { $case: "memberApiCancel", value: { streamId: 1 } } });
    streams.received(frame({ streamId: 2, status: 200, end: true }));
    assert.deepEqual(b.log, ["head 200", "end "]);
  });

  it("refuses past its limit, drops frames of no open request, maps a bad status to 502 and fails everything when the stream closes", () => {
    const streams = new MemberApiStreams(() => undefined, 2);
    const a = recorder();
    const b = recorder();
    assert.ok(streams.start(call, a.sink));
    assert.ok(streams.start(call, b.sink));
    assert.equal(streams.start(call, recorder().sink), undefined);
    assert.equal(streams.has(1), true);
    assert.equal(streams.has(99), false, "a frame of no request in flight is not window-bounded: the hub counts it against the agent's message rate");
    streams.received(frame({ streamId: 99, status: 200, end: true }));
    streams.received(frame({ streamId: 1, status: 42 }));
    streams.closeAll("the agent's stream closed");
    assert.deepEqual(a.log, ["head 502", "end the agent's stream closed"]);
    assert.deepEqual(b.log, ["end the agent's stream closed"]);
    assert.equal(streams.inFlight, 0);
  });

  it("a cancelled request tells the agent once and ignores its late frames", () => {
    const sent: ControlMessage[] = [];
    const streams = new MemberApiStreams((m) => sent.push(m), 2);
    const a = recorder();
    const h = streams.start(call, a.sink);
    h?.cancel();
    h?.cancel();
    streams.received(frame({ status: 200, end: true }));
    assert.deepEqual(sent.map((m) => m.kind?.$case), ["memberApiRequest", "memberApiCancel"]);
    assert.deepEqual(a.log, []);
  });

  it("an upgrade's caller bytes go within the agent's window, and more go once it credits them", () => {
    const sent: ControlMessage[] = [];
    const streams = new MemberApiStreams((m) => sent.push(m), 2);
    let credits = 0;
    const h = streams.start({ ...call, upgrade: true }, { head: () => undefined, data: () => undefined, end: () => undefined, credit: () => credits++ });
    assert.ok(h);
    assert.equal(sent[0]?.kind?.$case === "memberApiRequest" && sent[0].kind.value.upgrade, true);
    let took = 0;
    for (let i = 0; i < 20; i++) took += h.send(Buffer.alloc(MEMBER_API_WINDOW / 8), false);
    assert.equal(took, MEMBER_API_WINDOW, "no more than the window before a credit");
    assert.equal(h.send(Buffer.alloc(10), false), 0);
    streams.received(frame({ status: 101, credit: 1000 }));
    assert.equal(credits, 1);
    assert.equal(h.send(Buffer.alloc(10), true), 10);
    const last = sent.at(-1);
    assert.ok(last?.kind?.$case === "memberApiData" && last.kind.value.end && last.kind.value.data.byteLength === 10);
  });
});
