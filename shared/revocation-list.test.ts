import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseRevocationList, revocationEntry, revokingEntry } from "./revocation-list.ts";

const FP = "AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89";
const FP_HEX = FP.replace(/:/g, "");

describe("parseRevocationList", () => {
  const cases: { name: string; text: string; serials?: string[]; fingerprints?: string[]; errors?: { line: number; reason: RegExp }[] }[] = [
    { name: "empty", text: "" },
    { name: "comments and blank lines only", text: "# revoked admins\n\n   \n  # another\n" },
    { name: "a fingerprint as openssl prints it, with colons", text: `${FP}\n`, fingerprints: [FP_HEX] },
    { name: "a fingerprint without colons, lower case", text: FP_HEX.toLowerCase(), fingerprints: [FP_HEX] },
    { name: "openssl's whole line", text: `sha256 Fingerprint=${FP}`, fingerprints: [FP_HEX] },
    { name: "OpenSSL 1.1's upper-case prefix", text: `SHA256 Fingerprint=${FP}`, fingerprints: [FP_HEX] },
    { name: "a serial, hex", text: "1a2b3c", serials: ["1A2B3C"] },
    { name: "a serial with colons and leading zeros", text: "00:1A:2B", serials: ["1A2B"] },
    { name: "openssl -serial's line", text: "serial=7F00AA", serials: ["7F00AA"] },
    { name: "trailing comment, CRLF endings, spaces", text: `  ${FP}   # CN=alice, revoked 2026-11-24\r\n1234 # bob\r\n`, fingerprints: [FP_HEX], serials: ["1234"] },
    { name: "a 40-digit serial is the longest", text: "F".repeat(40), serials: ["F".repeat(40)] },
    { name: "not hex", text: "# ok\nalice\n", errors: [{ line: 2, reason: /not hex/ }] },
    { name: "a word after the entry", text: `${FP} alice`, errors: [{ line: 1, reason: /not hex/ }] },
    { name: "too long for a serial, too short for a fingerprint", text: "A".repeat(41), errors: [{ line: 1, reason: /41 hex digits: neither a serial number/ }] },
    { name: "longer than a fingerprint", text: "A".repeat(66), errors: [{ line: 1, reason: /66 hex digits/ }] },
    { name: "a fingerprint prefix on a short value", text: "sha256 Fingerprint=AB:CD", errors: [{ line: 1, reason: /64 hex digits, not 4/ }] },
    { name: "a SHA-1 fingerprint", text: "sha1 Fingerprint=AB:CD", errors: [{ line: 1, reason: /not hex/ }] },
    { name: "good lines are kept next to a bad one", text: `${FP}\nnope\n12`, fingerprints: [FP_HEX], serials: ["12"], errors: [{ line: 2, reason: /not hex/ }] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const list = parseRevocationList(c.text);
      assert.deepEqual([...list.serials], c.serials ?? []);
      assert.deepEqual([...list.fingerprints], c.fingerprints ?? []);
      assert.equal(list.errors.length, (c.errors ?? []).length, JSON.stringify(list.errors));
      for (const [i, e] of (c.errors ?? []).entries()) {
        assert.equal(list.errors[i]?.line, e.line);
        assert.match(list.errors[i]?.reason ?? "", e.reason);
      }
    });
  }
});

describe("revokingEntry", () => {
  const list = parseRevocationList(`${FP}\n00ABC1\n`);
  const cases: { name: string; cert: { fingerprint256?: string; serialNumber?: string }; revoked: RegExp | undefined }[] = [
    { name: "by fingerprint", cert: { fingerprint256: FP, serialNumber: "99" }, revoked: /^SHA-256 fingerprint ABCDEF/ },
    { name: "by serial, leading zeros aside", cert: { fingerprint256: FP.replace("AB", "00"), serialNumber: "abc1" }, revoked: /^serial number ABC1$/ },
    { name: "neither", cert: { fingerprint256: FP.replace("AB", "00"), serialNumber: "ABC2" }, revoked: undefined },
    { name: "a certificate with no fields", cert: {}, revoked: undefined },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = revokingEntry(list, c.cert);
      if (c.revoked === undefined) assert.equal(got, undefined);
      else assert.match(got ?? "", c.revoked);
    });
  }
  it("an empty list revokes nothing", () => assert.equal(revokingEntry(parseRevocationList(""), { fingerprint256: FP, serialNumber: "1" }), undefined));
});

describe("revocationEntry", () => {
  it("is one line the list reads back as the fingerprint, naming the certificate in a comment", () => {
    const line = revocationEntry({ fingerprint256: FP.toLowerCase(), subject: "CN=alice\nO=flotilla:viewers", serialNumber: "1a2b" }, new Date("2026-11-24T08:00:00Z"));
    assert.equal(line, `${FP} # CN=alice, O=flotilla:viewers, serial 1A2B, revoked 2026-11-24T08:00:00.000Z\n`);
    const list = parseRevocationList(line);
    assert.deepEqual([...list.fingerprints], [FP_HEX]);
    assert.deepEqual(list.errors, []);
  });
});
