import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import { diffPair, projectOnto, redactSecret } from "./live-view.ts";

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

describe("Secrets in a diff", () => {
  const secret = (data: Record<string, string>, stringData?: Record<string, string>): KubeObject => ({ apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, data, ...(stringData ? { stringData } : {}) });
  it("replaces values by a digest, never the value", () => {
    const r = redactSecret(secret({ token: Buffer.from("hunter2").toString("base64") }));
    assert.match((r.data as Record<string, string>).token as string, /^sha256:[0-9a-f]{12}$/);
    assert.ok(!JSON.stringify(r).includes("aHVudGVyMg") && !JSON.stringify(r).includes("hunter2"));
  });
  it("gives the same digest for the same bytes in data and stringData", () => {
    const a = redactSecret(secret({ k: Buffer.from("v").toString("base64") }));
    const b = redactSecret(secret({}, { k: "v" }));
    assert.equal((a.data as Record<string, string>).k, (b.stringData as Record<string, string>).k);
  });
  it("leaves other kinds alone", () => {
    const cm: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { k: "v" } };
    assert.deepEqual(redactSecret(cm), cm);
  });
  it("pairs a rendered object with the projected live one", () => {
    const rendered: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "w", labels: { a: "1" } }, spec: { replicas: 2 } };
    const live: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "w", labels: { a: "1", other: "x" }, uid: "u" }, spec: { replicas: 3, strategy: {} }, status: {} };
    assert.deepEqual(diffPair(rendered, live).live, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "w", labels: { a: "1" } }, spec: { replicas: 3 } });
    assert.equal(diffPair(rendered, undefined).live, undefined);
  });
});
