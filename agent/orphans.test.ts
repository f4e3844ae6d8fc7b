import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../shared/api/types.ts";
import { workKeyLabelValue } from "../shared/work-key.ts";
import type { AppliedRecord } from "./applied-store.ts";
import { adoptOrphans } from "./orphans.ts";

const KEY = "core/v1/ConfigMap/default/web";
const labelled = (name: string, key = KEY, extra: Record<string, string> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "default", labels: { "flotilla.dev/work": workKeyLabelValue(key), ...extra }, annotations: { "flotilla.dev/work-key": key } },
});
const rec = (hash: string, names: string[]): AppliedRecord => ({ key: KEY, hash, resources: names.map((name) => ({ apiVersion: "v1", kind: "ConfigMap", namespace: "default", name })) });

describe("adoptOrphans", () => {
  const cases: { name: string; records: AppliedRecord[]; objects: KubeObject[]; want: AppliedRecord[] }[] = [
    { name: "every labelled object has its record: nothing to adopt", records: [rec("h1", ["web"])], objects: [labelled("web")], want: [] },
    { name: "no record at all: adopted under its Work's key with no hash", records: [], objects: [labelled("web")], want: [rec("", ["web"])] },
    { name: "a record that lacks the object: it is added, the hash kept", records: [rec("h1", ["web"])], objects: [labelled("web"), labelled("web-extra")], want: [rec("h1", ["web", "web-extra"])] },
    { name: "two orphans of one Work: one record", records: [], objects: [labelled("a"), labelled("b")], want: [rec("", ["a", "b"])] },
    { name: "a label that does not match the annotation is not a Work's: left alone", records: [], objects: [{ ...labelled("web"), metadata: { ...labelled("web").metadata, labels: { "flotilla.dev/work": "0000" } } }], want: [] },
    { name: "no annotation: left alone", records: [], objects: [{ ...labelled("web"), metadata: { ...labelled("web").metadata, annotations: {} } }], want: [] },
    { name: "managed=false: never touched", records: [], objects: [labelled("web", KEY, { "flotilla.dev/managed": "false" })], want: [] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(adoptOrphans(new Map(c.records.map((r) => [r.key, r])), c.objects), c.want));
});
