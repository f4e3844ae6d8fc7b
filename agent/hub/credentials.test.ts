import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { renewAt } from "./credentials.ts";

describe("renewAt", () => {
  const H = 3_600_000;
  const D = 24 * H;
  const cases: { name: string; notAfter: number; receivedAt: number; renewBefore: number; want: number }[] = [
    { name: "a year-long certificate renews 30 days before it expires", notAfter: 365 * D, receivedAt: 0, renewBefore: 30 * D, want: 335 * D },
    { name: "a short one renews at half of its life, not at once", notAfter: 30_000, receivedAt: 0, renewBefore: 720 * H, want: 15_000 },
    { name: "half of what was left when it arrived late", notAfter: 100_000, receivedAt: 60_000, renewBefore: 720 * H, want: 80_000 },
    { name: "renew-before of zero waits for expiry", notAfter: 10 * D, receivedAt: 0, renewBefore: 0, want: 10 * D },
  ];
  for (const c of cases) it(c.name, () => assert.equal(renewAt(c.notAfter, c.receivedAt, c.renewBefore), c.want));
});
