import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ProcessExit } from "./managed-process.ts";
import { DEFAULT_BACKOFF, describeExit, type RestartDecision, type RestartPolicy, restartDecision, seconds } from "./restart-policy.ts";

const up: RestartPolicy = { when: "own-exit", ...DEFAULT_BACKOFF };
const always: RestartPolicy = { when: "always", ...DEFAULT_BACKOFF };
const code = (c: number): ProcessExit => ({ code: c, signal: null });
const signal = (s: NodeJS.Signals): ProcessExit => ({ code: null, signal: s });
const restartIn = (delayMs: number): RestartDecision => ({ restart: true, delayMs });

describe("restartDecision", () => {
  const cases: { name: string; policy: RestartPolicy; exit: ProcessExit; ranForMs: number; previous: number | undefined; want: RestartDecision }[] = [
    { name: "a replica that lost its lease (exit 1): restarted after 1 s", policy: up, exit: code(1), ranForMs: 5_000, previous: undefined, want: restartIn(1_000) },
    { name: "it exits again soon after: the delay doubles", policy: up, exit: code(1), ranForMs: 5_000, previous: 1_000, want: restartIn(2_000) },
    { name: "and again", policy: up, exit: code(1), ranForMs: 500, previous: 8_000, want: restartIn(16_000) },
    { name: "never more than 30 s", policy: up, exit: code(1), ranForMs: 500, previous: 16_000, want: restartIn(30_000) },
    { name: "stays at 30 s while it keeps failing", policy: up, exit: code(1), ranForMs: 59_999, previous: 30_000, want: restartIn(30_000) },
    { name: "a run of a minute resets the delay", policy: up, exit: code(1), ranForMs: 60_000, previous: 30_000, want: restartIn(1_000) },
    { name: "a crash signal (SIGABRT) is its own exit", policy: up, exit: signal("SIGABRT"), ranForMs: 1_000, previous: undefined, want: restartIn(1_000) },
    { name: "SIGSEGV too", policy: up, exit: signal("SIGSEGV"), ranForMs: 1_000, previous: 2_000, want: restartIn(4_000) },
    { name: "kill -9 by a person: left down", policy: up, exit: signal("SIGKILL"), ranForMs: 1_000, previous: undefined, want: { restart: false, why: "stopped by SIGKILL from outside" } },
    { name: "a SIGTERM that ended it by signal: left down", policy: up, exit: signal("SIGTERM"), ranForMs: 1_000, previous: undefined, want: { restart: false, why: "stopped by SIGTERM from outside" } },
    { name: "Ctrl-C: left down", policy: up, exit: signal("SIGINT"), ranForMs: 1_000, previous: undefined, want: { restart: false, why: "stopped by SIGINT from outside" } },
    { name: "exit 0 (SIGTERM drained it): left down", policy: up, exit: code(0), ranForMs: 1_000, previous: undefined, want: { restart: false, why: "stopped cleanly (code 0)" } },
    { name: "always: kill -9 is restarted", policy: always, exit: signal("SIGKILL"), ranForMs: 1_000, previous: undefined, want: restartIn(1_000) },
    { name: "always: exit 0 is restarted, with back-off", policy: always, exit: code(0), ranForMs: 1_000, previous: 4_000, want: restartIn(8_000) },
    { name: "a custom policy's initial delay is the floor", policy: { when: "always", initialMs: 500, maxMs: 2_000, resetAfterMs: 10_000 }, exit: code(2), ranForMs: 100, previous: 100, want: restartIn(500) },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(restartDecision(c.policy, c.exit, c.ranForMs, c.previous), c.want));

  it("describes exits and delays for the one-line report", () => {
    assert.equal(describeExit(code(1)), "code 1");
    assert.equal(describeExit(signal("SIGABRT")), "signal SIGABRT");
    assert.equal(seconds(1_000), "1 s");
    assert.equal(seconds(1_500), "1.5 s");
    assert.equal(seconds(30_000), "30 s");
  });
});
