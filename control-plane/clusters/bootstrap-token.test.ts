import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkToken, formatToken, newToken, parseToken, TOKEN_SECRET_TYPE, tokenInfo, tokenSecret } from "./bootstrap-token.ts";

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
    assert.deepEqual(tokenInfo(stored), { id: "abc123", expires: "2026-11-23T10:00:00.000Z", description: "for member7" });
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
});
