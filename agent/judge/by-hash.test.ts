import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import type { AppliedRecord } from "./applied-record.ts";
import { helloHashes, liveFingerprint } from "./by-hash.ts";

const rec = (key: string, hash: string, whole?: boolean): AppliedRecord => ({ key, hash, resources: [], ...(whole === undefined ? {} : { whole }) });

describe("helloHashes", () => {
  const cases: { name: string; records: AppliedRecord[]; held: { key: string; hash: string }[]; wanted: string[]; want: Record<string, string> }[] = [
    { name: "a Work applied in full is held by its hash (no contents needed)", records: [rec("a", "h1", true)], held: [], wanted: [], want: { a: "h1" } },
    { name: "a record of an older agent (no whole) asks for the contents", records: [rec("a", "h1")], held: [], wanted: [], want: { a: "" } },
    { name: "a Work with a manifest left alone asks for the contents (it re-checks the conflict)", records: [rec("a", "h1", false)], held: [], wanted: [], want: { a: "" } },
    { name: "a Work whose contents were asked for and not received asks again", records: [rec("a", "h1", true)], held: [], wanted: ["a"], want: { a: "" } },
    { name: "a Work held with manifests gives the hash it holds, over its record", records: [rec("a", "h1", true), rec("b", "", false)], held: [{ key: "a", hash: "h2" }, { key: "c", hash: "h3" }], wanted: [], want: { a: "h2", b: "", c: "h3" } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(helloHashes(c.records, c.held, new Set(c.wanted)), c.want));
});

describe("liveFingerprint", () => {
  const cm = (data: Record<string, string>, extra: Partial<KubeObject["metadata"]> = {}, status?: unknown): KubeObject =>
    ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "d", uid: "u1", resourceVersion: "1", labels: { "flotilla.dev/work": "x" }, ...extra }, data, ...(status === undefined ? {} : { status }) }) as KubeObject;
  const base = liveFingerprint([cm({ k: "v" })]);
  const cases: { name: string; objects: (KubeObject | undefined)[]; same: boolean }[] = [
    { name: "a new resourceVersion alone is no drift", objects: [cm({ k: "v" }, { resourceVersion: "2" })], same: true },
    { name: "a status change is no drift (the member's controllers write it)", objects: [cm({ k: "v" }, {}, { ready: 1 })], same: true },
    { name: "managedFields are no drift", objects: [cm({ k: "v" }, { managedFields: [{ manager: "x" }] } as Partial<KubeObject["metadata"]>)], same: true },
    { name: "an edit of the data is drift", objects: [cm({ k: "edited" })], same: false },
    { name: "a changed label is drift", objects: [cm({ k: "v" }, { labels: { "flotilla.dev/work": "x", extra: "1" } })], same: false },
    { name: "a recreated object (new uid) is drift", objects: [cm({ k: "v" }, { uid: "u2" })], same: false },
    { name: "a deleted object is drift", objects: [undefined], same: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(liveFingerprint(c.objects) === base, c.same));
});
