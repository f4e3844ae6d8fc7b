import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import { workKeyLabelValue } from "../../shared/work-key.ts";
import type { AppliedRecord } from "./applied-record.ts";
import { adoptOrphans } from "./orphans.ts";

const KEY = "core/v1/ConfigMap/default/web";
const labelled = (name: string, key = KEY, extra: Record<string, string> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "default", labels: { "flotilla.dev/work": workKeyLabelValue(key), ...extra }, annotations: { "flotilla.dev/work-key": key } },
});
const rec = (hash: string, names: string[]): AppliedRecord => ({ key: KEY, hash, resources: names.map((name) => ({ apiVersion: "v1", kind: "ConfigMap", namespace: "default", name })) });

const inNamespace = (namespace: string): KubeObject => ({ ...labelled("web"), metadata: { ...labelled("web").metadata, namespace } });
const crKey = "example.com/v1/Widget/default/w";
const widget = (apiVersion: string, kind = "Widget"): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name: "w", namespace: "default", labels: { "flotilla.dev/work": workKeyLabelValue(crKey) }, annotations: { "flotilla.dev/work-key": crKey } },
});

describe("adoptOrphans", () => {
  const cases: { name: string; records: AppliedRecord[]; objects: KubeObject[]; want: AppliedRecord[] }[] = [
    { name: "every labelled object has its record: nothing to adopt", records: [rec("h1", ["web"])], objects: [labelled("web")], want: [] },
    { name: "no record at all: adopted under its Work's key with no hash", records: [], objects: [labelled("web")], want: [rec("", ["web"])] },
    { name: "a record that lacks the key's object: it is added, the hash kept", records: [rec("h1", [])], objects: [labelled("web")], want: [rec("h1", ["web"])] },
    { name: "a record's other fields (whole, preserve) are kept", records: [{ ...rec("h1", []), whole: true, preserve: true }], objects: [labelled("web")], want: [{ ...rec("h1", ["web"]), whole: true, preserve: true }] },
    // Issue 37, item 3: a user's copy carries the Work's label and annotation, but is not the Work's object.
    { name: "a copy under another name (kubectl get -o yaml | sed | apply): left alone", records: [rec("h1", ["web"])], objects: [labelled("web"), labelled("web-copy")], want: [] },
    { name: "a copy under another name, with no record: only the key's object is adopted", records: [], objects: [labelled("web-copy"), labelled("web")], want: [rec("", ["web"])] },
    { name: "a copy in another namespace (a restore with a namespace mapping): left alone", records: [], objects: [inNamespace("restored")], want: [] },
    { name: "a copy as another kind: left alone", records: [], objects: [{ ...labelled("web"), kind: "Secret" }], want: [] },
    { name: "a copy in another group: left alone", records: [], objects: [{ ...widget("other.io/v1"), kind: "Widget" }], want: [] },
    { name: "the key's custom object listed at another version of its CRD: adopted", records: [], objects: [widget("example.com/v2")], want: [{ key: crKey, hash: "", resources: [{ apiVersion: "example.com/v2", kind: "Widget", namespace: "default", name: "w" }] }] },
    {
      name: "recorded at one version, listed at that one and another: already the Work's, not adopted twice (a prune would delete it)",
      records: [{ key: crKey, hash: "h", resources: [{ apiVersion: "example.com/v1", kind: "Widget", namespace: "default", name: "w" }], whole: true }],
      objects: [widget("example.com/v1"), widget("example.com/v2")],
      want: [],
    },
    {
      name: "no record, listed at two versions: adopted once",
      records: [],
      objects: [widget("example.com/v1"), widget("example.com/v2")],
      want: [{ key: crKey, hash: "", resources: [{ apiVersion: "example.com/v1", kind: "Widget", namespace: "default", name: "w" }] }],
    },
    { name: "a key that does not parse names nothing", records: [], objects: [{ ...labelled("web", "not-a-key"), metadata: { ...labelled("web", "not-a-key").metadata, labels: { "flotilla.dev/work": workKeyLabelValue("not-a-key") } } }], want: [] },
    { name: "a label that does not match the annotation is not a Work's: left alone", records: [], objects: [{ ...labelled("web"), metadata: { ...labelled("web").metadata, labels: { "flotilla.dev/work": "0000" } } }], want: [] },
    { name: "no annotation: left alone", records: [], objects: [{ ...labelled("web"), metadata: { ...labelled("web").metadata, annotations: {} } }], want: [] },
    {
      name: "an adopted object is recorded with its uid: only that object may go with the Work",
      records: [],
      objects: [{ ...labelled("web"), metadata: { ...labelled("web").metadata, uid: "u7" } }],
      want: [{ key: KEY, hash: "", resources: [{ apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "web", uid: "u7" }] }],
    },
    { name: "managed=false: never touched", records: [], objects: [labelled("web", KEY, { "flotilla.dev/managed": "false" })], want: [] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(adoptOrphans(new Map(c.records.map((r) => [r.key, r])), c.objects), c.want));
});
