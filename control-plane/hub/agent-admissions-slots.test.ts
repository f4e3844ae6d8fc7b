// Issue 42, an adversarial review: one bucket for connections below TLS and for streams. A stream that is not
// its connection's first (its previous one ended, the connection lives on) is refused with a slot
// of its own (retry-after), but the listener takes every token the moment it accrues while
// connections wait, so the stream, back at its slot, is refused again, for as long as anyone keeps
// connections waiting. Fails on main at 64cc46c.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AgentAdmissions } from "./agent-admissions.ts";

describe("review 42: AgentAdmissions", () => {
  it("a refused stream that comes back at its retry-after is admitted while connections wait below TLS", () => {
    const admissions = new AgentAdmissions({ perSecond: 10, burst: 1 }, 0);
    // The listener (gated-listener.ts next()): while its queue is not empty, it asks at once after
    // each admission, and again after the waitMs it is told.
    let listenerAt = 0;
    // The stream: refused, it comes back after retryAfterMs with the agent's jitter (shared/reconnect.ts, at least the slot).
    let streamAt = 5;
    let refusals = 0;
    let admittedAt: number | undefined;
    let connections = 0;
    while (admittedAt === undefined && Math.min(listenerAt, streamAt) < 60_000) {
      if (listenerAt <= streamAt) {
        const wait = admissions.admitConnection(`c${connections}`, listenerAt);
        if (wait === 0) connections++;
        else listenerAt += wait;
        continue;
      }
      const a = admissions.admitStream("agent-on-its-old-connection", streamAt);
      if (a.admit) admittedAt = streamAt;
      else {
        refusals++;
        streamAt += Math.round(a.retryAfterMs * 1.05) + 1;
      }
    }
    assert.ok(admittedAt !== undefined, `never admitted in a minute of connections waiting (${refusals} refusals, ${connections} connections admitted meanwhile)`);
  });
});
