// Adversarial review of issue 41 (the hub's agent session): member API frames skip the message
// rate so that a caller's answer never pauses the stream; frames for no request the hub opened
// must not get that pass (else a hostile agent floods the hub's event loop, unthrottled).
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { describe, it } from "node:test";
import pino from "pino";
import type { AgentMessage } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { FEATURES } from "../../shared/protocol.ts";
import { TokenBucketLimiter } from "../../shared/rate-limiter.ts";
import { AgentSession } from "./agent-session.ts";

class FakeCall extends EventEmitter {
  paused = 0;
  written: unknown[] = [];
  write(m: unknown): boolean {
    this.written.push(m);
    return true;
  }
  pause(): void {
    this.paused++;
  }
  resume(): void {}
}

describe("agent session: member API frames and the message rate (issue 41 review)", () => {
  it("a flood of member API frames for streams the hub never opened is throttled like any other message", () => {
    const call = new FakeCall();
    const works = { hashes: () => new Map(), subscribe: () => () => undefined, keys: () => [], get: () => undefined, brakeKey: () => undefined, sendable: () => true };
    const session = new AgentSession({
      cluster: "m1",
      call: call as never,
      works: works as never,
      events: { status: () => undefined, heartbeat: () => undefined } as never,
      log: pino({ level: "silent" }),
      onHello: () => undefined,
      onClosed: () => undefined,
      bucket: new TokenBucketLimiter(10, 10, { now: () => 0 } as never),
      helloTimeoutMs: 60_000,
    });
    const hello: AgentMessage = { kind: { $case: "hello", value: { clusterName: "m1", agentVersion: "x", workHashes: {}, needsContents: false, protocolVersion: 2, features: [FEATURES.memberApi], earlierRegistrationWorks: [], earlierRegistrationBits: Buffer.alloc(0) } } };
    call.emit("data", hello);
    assert.ok(call.written.some((m) => (m as { kind?: { $case?: string } }).kind?.$case === "syncDone"), "the session took the Hello");
    // Any other message past the bucket pauses the stream (10 a second here): 20 heartbeats would.
    const before = call.paused;
    for (let i = 0; i < 10_000; i++) {
      call.emit("data", { kind: { $case: "memberApiResponse", value: { streamId: 4_000_000 + i, status: 200, headers: { a: "b".repeat(100) }, data: Buffer.alloc(1024), end: false, error: "", credit: 0 } } } satisfies AgentMessage);
    }
    assert.ok(call.paused > before, "10 000 frames for streams that were never opened passed without the stream ever being paused");
    session.fail(0 as never, "done");
  });
});
