import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../../shared/clock.ts";
import { HostnameResolver, type Lookup, systemLookup } from "./resolver.ts";

/** A lookup over a fixed table; names absent from it fail, "slow." never answers. */
function tableLookup(table: Record<string, string[]>): Lookup & { asked: string[] } {
  const asked: string[] = [];
  const fn = async (h: string) => {
    asked.push(h);
    if (h === "slow.") return new Promise<string[]>(() => {});
    const a = table[h];
    if (a === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${h}`), { code: "ENOTFOUND" });
    return a;
  };
  return Object.assign(fn, { asked });
}

describe("HostnameResolver", () => {
  it("answers each name, undefined for one that does not resolve, and reuses answers until they expire", async () => {
    const clock = new FakeClock();
    const lookup = tableLookup({ "lb.example.": ["10.0.0.2", "10.0.0.1"] });
    const r = new HostnameResolver({ lookup, clock, ttlMs: 60_000, failureTtlMs: 10_000 });
    const first = await r.resolveAll(["lb.example.", "nxdomain.example."]);
    assert.deepEqual(first.get("lb.example."), ["10.0.0.2", "10.0.0.1"]);
    assert.equal(first.get("nxdomain.example."), undefined);
    assert.equal(first.has("nxdomain.example."), true);

    await r.resolveAll(["lb.example.", "nxdomain.example."]);
    assert.equal(r.lookups, 2, "both answers (the failure too) come from the cache");

    clock.advance(10_001); // the failure expires first
    await r.resolveAll(["lb.example.", "nxdomain.example."]);
    assert.deepEqual(lookup.asked, ["lb.example.", "nxdomain.example.", "nxdomain.example."]);

    clock.advance(50_000);
    await r.resolveAll(["lb.example."]);
    assert.equal(lookup.asked.filter((h) => h === "lb.example.").length, 2, "an expired answer is asked again");
  });

  it("a lookup past the timeout counts as not resolving, and the call still answers", async () => {
    const clock = new FakeClock();
    const r = new HostnameResolver({ lookup: tableLookup({ "fast.": ["10.0.0.9"] }), clock, timeoutMs: 2000 });
    const answer = r.resolveAll(["slow.", "fast."]);
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(2000);
    const got = await answer;
    assert.equal(got.get("slow."), undefined);
    assert.deepEqual(got.get("fast."), ["10.0.0.9"]);
  });

  it("the same name asked twice at once is looked up once", async () => {
    const r = new HostnameResolver({ lookup: tableLookup({ "lb.": ["10.0.0.1"] }) });
    const [a, b] = await Promise.all([r.resolveAll(["lb."]), r.resolveAll(["lb."])]);
    assert.deepEqual(a.get("lb."), ["10.0.0.1"]);
    assert.deepEqual(b.get("lb."), ["10.0.0.1"]);
    assert.equal(r.lookups, 1);
  });

  it("keeps at most maxEntries names, dropping the oldest", async () => {
    const lookup = tableLookup({ "a.": ["10.0.0.1"], "b.": ["10.0.0.2"], "c.": ["10.0.0.3"] });
    const r = new HostnameResolver({ lookup, maxEntries: 2 });
    await r.resolveAll(["a.", "b.", "c."]);
    await r.resolveAll(["b.", "c."]);
    assert.equal(r.lookups, 3, "the two newest are cached");
    await r.resolveAll(["a."]);
    assert.equal(r.lookups, 4, "the oldest was dropped");
  });

  it("the system lookup resolves localhost from the hosts file, to IPv4", async () => {
    assert.ok((await systemLookup("localhost")).includes("127.0.0.1"));
  });
});
