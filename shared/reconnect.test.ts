import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { maxReconnectBackoffProblem, reconnectDelay, retryAfterOf } from "./reconnect.ts";

describe("reconnectDelay", () => {
  const base = { minBackoffMs: 500, maxBackoffMs: 30_000 };
  const cases: { name: string; input: { attempt: number; retryAfterMs?: number; spreadMs?: number; random: number }; want: number }[] = [
    { name: "no word from the hub: full jitter under the first backoff", input: { attempt: 0, random: 0.5 }, want: 250 },
    { name: "exponential: the cap doubles per attempt", input: { attempt: 3, random: 0.5 }, want: 2000 },
    { name: "exponential: never beyond the maximum", input: { attempt: 20, random: 0.99 }, want: 29_700 },
    { name: "the hub said when: that long, plus up to a tenth of it", input: { attempt: 5, retryAfterMs: 40_000, random: 0.5 }, want: 42_000 },
    { name: "the hub said when: never earlier, even with the least jitter", input: { attempt: 0, retryAfterMs: 7, random: 0 }, want: 7 },
    { name: "the hub's retry-after wins over the spread window", input: { attempt: 0, retryAfterMs: 1000, spreadMs: 50_000, random: 0 }, want: 1000 },
    { name: "first attempt after a synced stream, with a spread window: uniformly over it", input: { attempt: 0, spreadMs: 50_000, random: 0.5 }, want: 25_000 },
    { name: "a spread window shorter than the first backoff changes nothing", input: { attempt: 0, spreadMs: 100, random: 0.5 }, want: 250 },
    { name: "later attempts back off as before (the hub refuses with retry-after if it must)", input: { attempt: 2, spreadMs: 50_000, random: 0.5 }, want: 1000 },
    { name: "an old hub tells no window (undefined): the old first backoff", input: { attempt: 0, spreadMs: undefined, random: 1 }, want: 500 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(reconnectDelay({ ...base, ...c.input }), c.want));
});

describe("retryAfterOf", () => {
  const cases: { name: string; values: unknown[] | undefined; want: number | undefined }[] = [
    { name: "a number of ms", values: ["1500"], want: 1500 },
    { name: "absent", values: undefined, want: undefined },
    { name: "empty", values: [], want: undefined },
    { name: "not a number", values: ["soon"], want: undefined },
    { name: "zero or negative: none", values: ["0"], want: undefined },
    { name: "absurdly long: an hour at most", values: ["999999999"], want: 3_600_000 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(retryAfterOf(c.values), c.want));
});

describe("maxReconnectBackoffProblem: an agent's --max-reconnect-backoff", () => {
  const cases: { name: string; ms: number; want: RegExp | undefined }[] = [
    { name: "the default, 30s", ms: 30_000, want: undefined },
    { name: "shorter, as tests set it", ms: 2_000, want: undefined },
    { name: "the first backoff itself", ms: 500, want: undefined },
    { name: "longer than the control plane allows for after a restart", ms: 31_000, want: /at most 30s.*got 31s/ },
    { name: "below the first backoff", ms: 100, want: /at least 500ms/ },
    { name: "not a number", ms: Number.NaN, want: /must be a duration/ },
  ];
  for (const c of cases)
    it(c.name, () => {
      const got = maxReconnectBackoffProblem(c.ms);
      if (c.want === undefined) assert.equal(got, undefined);
      else assert.match(got ?? "", c.want);
    });
});
