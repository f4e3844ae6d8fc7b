import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AgentAdmissions } from "./agent-admissions.ts";

const rate = { perSecond: 2, burst: 2 };

describe("AgentAdmissions", () => {
  it("an agent pays once: the first stream of a connection admitted below TLS is free; a second stream there pays", () => {
    const a = new AgentAdmissions(rate, 0);
    assert.equal(a.admitConnection("10.0.0.1:5000", 0), 0);
    assert.equal(a.admitConnection("10.0.0.2:5000", 0), 0);
    // The bucket is empty now: a third connection waits for the next token, 500 ms away.
    assert.equal(a.admitConnection("10.0.0.3:5000", 0), 500);
    assert.deepEqual(a.admitStream("10.0.0.1:5000", 1), { admit: true });
    assert.deepEqual(a.admitStream("10.0.0.2:5000", 1), { admit: true });
    assert.deepEqual(a.admitStream("10.0.0.1:5000", 2), { admit: false, retryAfterMs: 498 });
    assert.equal(a.refused, 1);
  });

  it("a connection that closed before its first stream leaves nothing paid behind", () => {
    const a = new AgentAdmissions(rate, 0);
    assert.equal(a.admitConnection("10.0.0.1:5000", 0), 0);
    a.connectionClosed("10.0.0.1:5000");
    assert.equal(a.admitConnection("10.0.0.2:5000", 0), 0);
    // Another connection later given the same address and port pays for itself.
    assert.deepEqual(a.admitStream("10.0.0.1:5000", 0), { admit: false, retryAfterMs: 500 });
  });

  it("the backlog counts the agents sent away and a storm lost here", () => {
    const a = new AgentAdmissions(rate, 0);
    assert.equal(a.backlogMs(0), 0);
    a.admitStream("x:1", 0);
    a.admitStream("x:2", 0);
    assert.deepEqual(a.admitStream("x:3", 0), { admit: false, retryAfterMs: 500 });
    assert.equal(a.backlogMs(0), 500);
    for (let i = 0; i < 10; i++) a.lost(`c${i}`, 0);
    assert.equal(a.backlogMs(0), 5_000, "10 agents lost at 2/s");
    for (let i = 0; i < 10; i++) a.back(`c${i}`);
    assert.equal(a.backlogMs(0), 500);
  });

  it("without a limit, everything is admitted and nothing waits", () => {
    const a = new AgentAdmissions(undefined, 0);
    assert.equal(a.limited, false);
    for (let i = 0; i < 5; i++) assert.equal(a.admitConnection(`p:${i}`, 0), 0);
    for (let i = 0; i < 10; i++) assert.deepEqual(a.admitStream(`q:${i}`, 0), { admit: true });
    assert.equal(a.backlogMs(0), 0);
  });
});
