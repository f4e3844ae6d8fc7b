import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { describe, it } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import { redactSecret } from "../../shared/secret-redaction.ts";
import { keyedRedaction, secretDigestKey } from "./secret-digest.ts";

const pem = () => generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
const b64 = (s: string) => Buffer.from(s).toString("base64");
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
const secret = (fields: Partial<KubeObject>): KubeObject => ({ apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, ...fields });
const one = (o: KubeObject, field: "data" | "stringData", k: string) => (o[field] as Record<string, string>)[k];

describe("secretDigestKey", () => {
  it("is 32 bytes, the same for the same hub key and different for another", () => {
    const a = pem();
    assert.equal(secretDigestKey(a).length, 32);
    assert.deepEqual(secretDigestKey(a), secretDigestKey(a));
    assert.notDeepEqual(secretDigestKey(a), secretDigestKey(pem()));
  });
});

describe("keyedRedaction", () => {
  const key = secretDigestKey(pem());
  const other = secretDigestKey(pem());
  const digestOf = (o: KubeObject, field: "data" | "stringData", k: string, withKey = key) => one(keyedRedaction(o, withKey), field, k);
  const cases: { name: string; a: () => string | undefined; b: () => string | undefined; equal: boolean }[] = [
    { name: "data and stringData of the same bytes", a: () => digestOf(secret({ data: { k: b64("pw") } }), "data", "k"), b: () => digestOf(secret({ stringData: { k: "pw" } }), "stringData", "k"), equal: true },
    { name: "a rendered value and the agent's redaction of the same live value", a: () => digestOf(secret({ stringData: { k: "pw" } }), "stringData", "k"), b: () => digestOf(redactSecret(secret({ data: { k: b64("pw") } })), "data", "k"), equal: true },
    { name: "different values", a: () => digestOf(secret({ data: { k: b64("pw") } }), "data", "k"), b: () => digestOf(secret({ data: { k: b64("pw2") } }), "data", "k"), equal: false },
    { name: "the same value under another fleet's key", a: () => digestOf(secret({ data: { k: b64("pw") } }), "data", "k"), b: () => digestOf(secret({ data: { k: b64("pw") } }), "data", "k", other), equal: false },
  ];
  for (const c of cases) {
    it(`digests ${c.name} ${c.equal ? "equally" : "differently"}`, () => {
      const [a, b] = [c.a(), c.b()];
      assert.match(a ?? "", /^hmac-sha256:[0-9a-f]{16}$/);
      assert.equal(a === b, c.equal);
    });
  }

  it("never shows a value, its base64 or its plain SHA-256 digest; keeps the keys", () => {
    const input = secret({ metadata: { name: "s", annotations: { [LAST_APPLIED]: `{"stringData":{"k":"pw-value"}}`, other: "kept" } }, data: { k: b64("pw-value") }, stringData: { j: "pw-value" } });
    const out = keyedRedaction(input, key);
    const plain = one(redactSecret(input), "data", "k") ?? "";
    const text = JSON.stringify(out);
    for (const v of ["pw-value", b64("pw-value"), plain, plain.slice(7)]) assert.ok(!text.includes(v), v);
    assert.deepEqual(Object.keys(out.data as object), ["k"]);
    assert.match(out.metadata.annotations?.[LAST_APPLIED] ?? "", /^hmac-sha256:[0-9a-f]{16}$/);
    assert.equal(out.metadata.annotations?.other, "kept");
    assert.equal(one(input, "data", "k"), b64("pw-value"), "the input is not changed");
  });

  it("leaves other kinds alone", () => {
    const cm: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { k: "v" } };
    assert.equal(keyedRedaction(cm, key), cm);
  });
});
