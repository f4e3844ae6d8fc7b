import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ChaosUsageError, type ChaosOptions, parseChaosOptions } from "./options.ts";

describe("parseChaosOptions", () => {
  const now = 4294967296 + 5;
  const cases: { name: string; args: string[]; want: ChaosOptions }[] = [
    { name: "defaults, seeded from the clock", args: [], want: { durationMs: 120_000, seed: 5, members: 3 } },
    { name: "every flag", args: ["--duration", "10m", "--seed", "7", "--members", "4", "--json", "r.json"], want: { durationMs: 600_000, seed: 7, members: 4, json: "r.json" } },
    { name: "inline values", args: ["--duration=45s", "--seed=0"], want: { durationMs: 45_000, seed: 0, members: 3 } },
    { name: "logs kept on failure", args: ["--keep-logs", "/tmp/l"], want: { durationMs: 120_000, seed: 5, members: 3, keepLogs: "/tmp/l" } },
    { name: "etcd restore", args: ["--etcd-restore"], want: { durationMs: 120_000, seed: 5, members: 3, etcdRestore: true } },
    { name: "help", args: ["--help"], want: { durationMs: 120_000, seed: 5, members: 3, help: true } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(parseChaosOptions(c.args, now), c.want));

  const bad: { name: string; args: string[]; message: RegExp }[] = [
    { name: "a short duration", args: ["--duration", "10s"], message: /at least 30s, not 10s/ },
    { name: "a bad duration", args: ["--duration", "soon"], message: /--duration: / },
    { name: "a negative seed", args: ["--seed", "-1"], message: /--seed must be a whole number from 0/ },
    { name: "two members", args: ["--members", "2"], message: /--members must be a whole number from 3 to 6, not "2"/ },
    { name: "a missing value", args: ["--json"], message: /--json needs a value/ },
    { name: "an unknown flag", args: ["--faults", "3"], message: /unknown flag "--faults"/ },
  ];
  for (const c of bad) {
    it(`refuses ${c.name}`, () => assert.throws(() => parseChaosOptions(c.args, now), (e: unknown) => e instanceof ChaosUsageError && c.message.test(e.message)));
  }
});
