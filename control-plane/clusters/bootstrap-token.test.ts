import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import { checkToken, formatToken, newToken, parseToken, returnUse, spendUse, TOKEN_SECRET_TYPE, tokenInfo, tokenSecret, tokenTtlSeconds } from "./bootstrap-token.ts";

describe("bootstrap tokens", () => {
  const now = new Date("2026-11-22T10:00:00Z");
  const token = { id: "abc123", secret: "0123456789abcdef" };
  const stored = tokenSecret(token, "flotilla-system", new Date("2026-11-23T10:00:00Z"), "for member7");

  it("makes random tokens in the documented shape", () => {
    const t = newToken();
    assert.match(formatToken(t), /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
    assert.notEqual(formatToken(newToken()), formatToken(t));
    assert.deepEqual(newToken(() => 0), { id: "aaaaaa", secret: "aaaaaaaaaaaaaaaa" });
  });

  const parses: [string, string][] = [
    ["abc123.0123456789abcdef", "abc123.0123456789abcdef"],
    [" abc123.0123456789abcdef\n", "abc123.0123456789abcdef"],
    ["ABC123.0123456789abcdef", "error"],
    ["abc12.0123456789abcdef", "error"],
    ["abc123-0123456789abcdef", "error"],
    ["", "error"],
  ];
  for (const [text, want] of parses) {
    it(`parses ${JSON.stringify(text)}`, () => {
      const r = parseToken(text);
      assert.equal("error" in r ? "error" : formatToken(r), want);
      if ("error" in r) assert.ok(!r.error.includes(text.trim()) || text.trim() === "", "the message does not echo the token");
    });
  }

  it("stores a token as a typed Secret", () => {
    assert.equal(stored.metadata.name, "flotilla-token-abc123");
    assert.equal(stored.type, TOKEN_SECRET_TYPE);
    assert.deepEqual(tokenInfo(stored), { id: "abc123", expires: "2026-11-23T10:00:00.000Z", description: "for member7", usesAllowed: 0, uses: 0 });
    assert.equal((stored.data as Record<string, string>)["uses-allowed"], undefined, "no limit: no count to keep");
    assert.deepEqual(tokenInfo(tokenSecret(token, "ns", new Date(0), "", 3)), { id: "abc123", expires: "1970-01-01T00:00:00.000Z", description: "", usesAllowed: 3, uses: 0 });
  });

  const checks: { name: string; stored: typeof stored | undefined; presented: typeof token; now: Date; want: string }[] = [
    { name: "the right token before expiry", stored, presented: token, now, want: "ok" },
    { name: "a wrong secret", stored, presented: { ...token, secret: "0123456789abcdee" }, now, want: "not valid" },
    { name: "another id", stored, presented: { ...token, id: "zzz999" }, now, want: "not valid" },
    { name: "no such Secret", stored: undefined, presented: token, now, want: "not valid" },
    { name: "a Secret of another type", stored: { ...stored, type: "Opaque" }, presented: token, now, want: "not valid" },
    { name: "after expiry", stored, presented: token, now: new Date("2026-11-23T10:00:00Z"), want: "expired at 2026-11-23T10:00:00.000Z" },
    { name: "a broken expiration", stored: { ...stored, data: { ...(stored.data as object), expiration: Buffer.from("soon").toString("base64") } }, presented: token, now, want: "no valid expiration" },
  ];
  for (const c of checks) {
    it(`checks ${c.name}`, () => {
      const r = checkToken(c.stored, c.presented, c.now);
      if (c.want === "ok") assert.deepEqual(r, { ok: true });
      else assert.match("error" in r ? r.error : "ok", new RegExp(c.want));
    });
  }

  const ttls: { requested: number; want: number | RegExp }[] = [
    { requested: 0, want: 86_400 },
    { requested: 1, want: 1 },
    { requested: 3600, want: 3600 },
    { requested: 7 * 86_400, want: 7 * 86_400 },
    { requested: 7 * 86_400 + 1, want: /at most 168h \(7 days\); 604801s was asked for/ },
    { requested: 8 * 86_400, want: /at most 168h \(7 days\); 192h was asked for/ },
    { requested: 0xffff_ffff, want: /at most 168h/ },
  ];
  for (const c of ttls) {
    it(`gives a token asked to live ${c.requested} s ${typeof c.want === "number" ? `${c.want} s` : "a refusal"}`, () => {
      const r = tokenTtlSeconds(c.requested);
      if (typeof c.want === "number") assert.deepEqual(r, { seconds: c.want });
      else assert.match("error" in r ? r.error : "accepted", c.want);
    });
  }

  const withCount = (allowed: string | undefined, used: string | undefined): KubeObject => {
    const data: Record<string, string> = { ...(stored.data as Record<string, string>) };
    if (allowed !== undefined) data["uses-allowed"] = Buffer.from(allowed).toString("base64");
    if (used !== undefined) data.uses = Buffer.from(used).toString("base64");
    return { ...stored, metadata: { ...stored.metadata, resourceVersion: "41" }, data };
  };
  const usesOf = (s: KubeObject | undefined) => (s === undefined ? undefined : tokenInfo(s).uses);
  const spends: { name: string; stored: KubeObject; want: number | "unlimited" | RegExp }[] = [
    { name: "no limit: nothing to count", stored, want: "unlimited" },
    { name: "1 allowed, none made: the first", stored: withCount("1", "0"), want: 1 },
    { name: "1 allowed, no count yet", stored: withCount("1", undefined), want: 1 },
    { name: "3 allowed, 2 made: the last", stored: withCount("3", "2"), want: 3 },
    { name: "1 allowed, 1 made: refused", stored: withCount("1", "1"), want: /no uses left \(it was good for 1 registration, all made\)/ },
    { name: "2 allowed, 5 made (edited): refused", stored: withCount("2", "5"), want: /no uses left \(it was good for 2 registrations, all made\)/ },
    { name: "a count that is not a number: refused", stored: withCount("1", "-1"), want: /no valid usage count/ },
    { name: "a limit of 0 written by hand: refused, not unlimited", stored: withCount("0", "0"), want: /no valid usage count/ },
    { name: "a limit that is not a number: refused", stored: withCount("many", "0"), want: /no valid usage count/ },
  ];
  for (const c of spends) {
    it(`spends a use: ${c.name}`, () => {
      const before = structuredClone(c.stored);
      const r = spendUse(c.stored);
      assert.deepEqual(c.stored, before, "the input is not changed");
      if (c.want === "unlimited") return assert.deepEqual(r, { next: undefined });
      if (c.want instanceof RegExp) return assert.match("error" in r ? r.error : "spent", c.want);
      assert.ok("next" in r && r.next !== undefined);
      assert.equal(usesOf(r.next), c.want);
      assert.equal(r.next.metadata.resourceVersion, "41", "the write is guarded by the version it was read at");
      assert.deepEqual(checkToken(r.next, token, now), { ok: true }, "still the same token");
    });
  }

  const returns: { name: string; stored: KubeObject; want: number | undefined }[] = [
    { name: "one of two made", stored: withCount("2", "1"), want: 0 },
    { name: "all made", stored: withCount("1", "1"), want: 0 },
    { name: "none made: nothing to give back", stored: withCount("1", "0"), want: undefined },
    { name: "no limit", stored, want: undefined },
    { name: "a broken count", stored: withCount("1", "x"), want: undefined },
  ];
  for (const c of returns) {
    it(`gives a use back: ${c.name}`, () => {
      assert.equal(usesOf(returnUse(c.stored)), c.want);
    });
  }
});
