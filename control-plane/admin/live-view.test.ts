import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import { redactSecret } from "../../shared/secret-redaction.ts";
import { diffPair, projectOnto } from "./live-view.ts";

describe("projectOnto", () => {
  const cases: { name: string; live: unknown; desired: unknown; want: unknown }[] = [
    { name: "keeps only keys the desired object sets", live: { a: 1, b: 2, status: { x: 1 } }, desired: { a: 0 }, want: { a: 1 } },
    { name: "recurses into objects", live: { spec: { replicas: 3, paused: false } }, desired: { spec: { replicas: 2 } }, want: { spec: { replicas: 3 } } },
    { name: "a key missing live stays missing (the diff shows it)", live: { spec: {} }, desired: { spec: { replicas: 2 } }, want: { spec: {} } },
    { name: "lists are whole", live: { l: [1, 2, 3] }, desired: { l: [1] }, want: { l: [1, 2, 3] } },
    { name: "a type change shows the live value", live: { a: "x" }, desired: { a: { b: 1 } }, want: { a: "x" } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(projectOnto(c.live, c.desired), c.want));
});

describe("diffPair", () => {
  const key = Buffer.alloc(32, 7);
  it("pairs a rendered object with the projected live one", () => {
    const rendered: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "w", labels: { a: "1" } }, spec: { replicas: 2 } };
    const live: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "w", labels: { a: "1", other: "x" }, uid: "u" }, spec: { replicas: 3, strategy: {} }, status: {} };
    assert.deepEqual(diffPair(rendered, live, key).live, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "w", labels: { a: "1" } }, spec: { replicas: 3 } });
    assert.equal(diffPair(rendered, undefined, key).live, undefined);
  });

  it("shows Secret values on both sides as keyed digests, equal for equal values, never plain SHA-256", () => {
    const value = "hunter2";
    const plain = `sha256:${createHash("sha256").update(value).digest("hex").slice(0, 12)}`;
    const rendered: KubeObject = { apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, data: { same: Buffer.from(value).toString("base64"), changed: Buffer.from("new").toString("base64") } };
    // What the agent sends: already redacted to plain digests, before the wire.
    const live = redactSecret({ apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, data: { same: Buffer.from(value).toString("base64"), changed: Buffer.from("old").toString("base64") } });
    const pair = diffPair(rendered, live, key);
    const r = pair.rendered.data as Record<string, string>;
    const l = pair.live?.data as Record<string, string>;
    assert.match(r.same ?? "", /^hmac-sha256:[0-9a-f]{16}$/);
    assert.equal(l.same, r.same, "equal values compare equal");
    assert.notEqual(l.changed, r.changed);
    const text = JSON.stringify(pair);
    for (const v of [value, Buffer.from(value).toString("base64"), plain, plain.slice(7)]) assert.ok(!text.includes(v), `${v} is not shown`);
  });
});
