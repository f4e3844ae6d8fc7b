import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "./api/types.ts";
import { redactSecret } from "./secret-redaction.ts";

const b64 = (s: string) => Buffer.from(s).toString("base64");
const secret = (extra: Partial<KubeObject>): KubeObject => ({ apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "n" }, type: "Opaque", ...extra });
const D = /^sha256:[0-9a-f]{12}$/;

describe("redactSecret", () => {
  const lastApplied = JSON.stringify({ apiVersion: "v1", kind: "Secret", data: { password: b64("hunter2") } });
  const cases: { name: string; input: KubeObject; check: (r: KubeObject) => void }[] = [
    {
      name: "data values become digests, keys stay",
      input: secret({ data: { password: b64("hunter2"), user: b64("admin") } }),
      check: (r) => {
        assert.deepEqual(Object.keys(r.data as object), ["password", "user"]);
        for (const v of Object.values(r.data as Record<string, string>)) assert.match(v, D);
      },
    },
    {
      name: "stringData values become digests of the same bytes",
      input: secret({ data: { a: b64("v") }, stringData: { a: "v" } }),
      check: (r) => assert.equal((r.data as Record<string, string>).a, (r.stringData as Record<string, string>).a),
    },
    {
      name: "the last-applied-configuration annotation (which repeats the values) becomes a digest; other annotations stay",
      input: secret({ metadata: { name: "s", annotations: { "kubectl.kubernetes.io/last-applied-configuration": lastApplied, team: "a" } }, data: { password: b64("hunter2") } }),
      check: (r) => {
        assert.match(r.metadata.annotations?.["kubectl.kubernetes.io/last-applied-configuration"] ?? "", D);
        assert.equal(r.metadata.annotations?.team, "a");
      },
    },
    {
      name: "a value that is not a string still becomes a digest",
      input: secret({ data: { odd: 42 as unknown as string } }),
      check: (r) => assert.match((r.data as Record<string, string>).odd as string, D),
    },
    { name: "no data at all: unchanged", input: secret({}), check: (r) => assert.deepEqual(r, secret({})) },
    {
      name: "other kinds are left alone (a ConfigMap's data is not secret)",
      input: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { k: "v" } },
      check: (r) => assert.deepEqual(r.data, { k: "v" }),
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = redactSecret(c.input);
      c.check(r);
      for (const secretText of ["hunter2", b64("hunter2"), "admin", b64("admin")]) assert.ok(!JSON.stringify(r).includes(secretText), `${secretText} does not appear`);
    });
  }
  it("is idempotent: redacting what the agent redacted gives the same digests", () => {
    const once = redactSecret(secret({ data: { password: b64("hunter2") }, metadata: { name: "s", annotations: { "kubectl.kubernetes.io/last-applied-configuration": lastApplied } } }));
    assert.deepEqual(redactSecret(once), once);
  });
  it("a stringData value that looks like a digest is digested all the same (it may be the secret)", () => {
    const r = redactSecret(secret({ stringData: { k: "sha256:0123456789ab" } }));
    assert.notEqual((r.stringData as Record<string, string>).k, "sha256:0123456789ab");
  });
});
