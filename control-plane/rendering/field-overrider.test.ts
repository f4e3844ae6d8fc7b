import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { KubeObject } from "../../shared/api/types.ts";
import { applyOverrides } from "./overrides.ts";
import { at, deployment, member1, rule, runFailCases, runOkCases } from "./overrides.fixtures.ts";

const YAML = "# the app's settings\nserver:\n  port: 8080\n  hosts:\n  - a.example\n  - b.example\nlog: info\n";
const JSON_TEXT = '{"db": {"host": "db.local", "port": 5432}, "replicas": [1, 2]}';

function settings(data: Record<string, unknown> = { "config.yaml": YAML, "config.json": JSON_TEXT }): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { namespace: "default", name: "settings" }, data } as KubeObject;
}

const yamlAt = (yaml: unknown[], fieldPath = "/data/config.yaml") => rule({ fieldOverrider: [{ fieldPath, yaml: yaml as never }] });
const jsonAt = (json: unknown[], fieldPath = "/data/config.json") => rule({ fieldOverrider: [{ fieldPath, json: json as never }] });

describe("applyOverrides: fieldOverrider (YAML)", () => {
  runOkCases([
    {
      name: "replace a sub-field: written back with keys sorted and comments gone, as Karmada does",
      obj: settings(),
      policies: yamlAt([{ subPath: "/server/port", operator: "replace", value: 9090 }]),
      want: { "/data/config.yaml": "log: info\nserver:\n  hosts:\n  - a.example\n  - b.example\n  port: 9090\n", "/data/config.json": JSON_TEXT },
    },
    {
      name: "add, remove and replace run in order, each on the result of the one before",
      obj: settings(),
      policies: yamlAt([
        { subPath: "/server/hosts/-", operator: "add", value: "c.example" },
        { subPath: "/server/hosts/0", operator: "remove" },
        { subPath: "/log", operator: "replace", value: { level: "debug" } },
      ]),
      want: { "/data/config.yaml": "log:\n  level: debug\nserver:\n  hosts:\n  - b.example\n  - c.example\n  port: 8080\n" },
    },
    {
      name: "a YAML 1.1 word that reads as a boolean stays a quoted string",
      obj: settings({ "config.yaml": "mode: \"yes\"\n" }),
      policies: yamlAt([{ subPath: "/extra", operator: "add", value: "on" }]),
      want: { "/data/config.yaml": 'extra: "on"\nmode: "yes"\n' },
    },
    {
      name: "a date stays the string it was written as",
      obj: settings({ "config.yaml": "since: 2024-01-02\n" }),
      policies: yamlAt([{ subPath: "/until", operator: "add", value: "x" }]),
      want: { "/data/config.yaml": "since: 2024-01-02\nuntil: x\n" },
    },
    {
      name: "subPath \"\" replaces the whole document",
      obj: settings(),
      policies: yamlAt([{ subPath: "", operator: "replace", value: { a: [1] } }]),
      want: { "/data/config.yaml": "a:\n- 1\n" },
    },
    {
      name: "an empty document is null: replacing it at \"\" fills it",
      obj: settings({ "config.yaml": "" }),
      policies: yamlAt([{ subPath: "", operator: "replace", value: { a: 1 } }]),
      want: { "/data/config.yaml": "a: 1\n" },
    },
    {
      name: "any string field is a target, not only a ConfigMap's data; ~1 escapes a slash",
      obj: deployment(),
      policies: rule({
        annotationsOverrider: [{ operator: "add", value: { "example.com/cfg": "a: 1\n" } }],
        fieldOverrider: [{ fieldPath: "/metadata/annotations/example.com~1cfg", yaml: [{ subPath: "/a", operator: "replace", value: 2 }] }],
      }),
      want: { "/metadata/annotations/example.com~1cfg": "a: 2\n" },
    },
  ]);
  runFailCases([
    { name: "a field that does not exist fails", obj: settings(), policies: yamlAt([{ subPath: "/a", operator: "add", value: 1 }], "/data/other.yaml"), message: "OverridePolicy default/web rule 0 fieldOverrider[0]: field /data/other.yaml does not exist" },
    { name: "a field that is not a string fails", obj: deployment(), policies: yamlAt([{ subPath: "/a", operator: "add", value: 1 }], "/spec/replicas"), message: "OverridePolicy default/web rule 0 fieldOverrider[0]: field /spec/replicas is not a string but a number" },
    { name: "an object field fails", obj: settings(), policies: yamlAt([{ subPath: "/a", operator: "add", value: 1 }], "/data"), message: "OverridePolicy default/web rule 0 fieldOverrider[0]: field /data is not a string but an object" },
    {
      name: "YAML that does not parse fails with the parser's first line",
      obj: settings({ "config.yaml": "a: [1\n" }),
      policies: yamlAt([{ subPath: "/a", operator: "add", value: 1 }]),
      message: "OverridePolicy default/web rule 0 fieldOverrider[0]: field /data/config.yaml is not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1",
    },
    { name: "a duplicate key fails", obj: settings({ "config.yaml": "a: 1\na: 2\n" }), policies: yamlAt([{ subPath: "/a", operator: "replace", value: 1 }]), message: "OverridePolicy default/web rule 0 fieldOverrider[0]: field /data/config.yaml is not valid YAML: Map keys must be unique at line 2, column 1" },
    { name: "several YAML documents fail (Karmada drops all but the first)", obj: settings({ "config.yaml": "a: 1\n---\nb: 2\n" }), policies: yamlAt([{ subPath: "/a", operator: "replace", value: 3 }]), message: "OverridePolicy default/web rule 0 fieldOverrider[0]: field /data/config.yaml holds 2 YAML documents; a fieldOverrider edits one" },
    { name: "a subPath that does not exist fails, naming the operation", obj: settings(), policies: yamlAt([{ subPath: "/log", operator: "replace", value: "x" }, { subPath: "/server/tls", operator: "remove" }]), message: "OverridePolicy default/web rule 0 fieldOverrider[0]: yaml[1]: path /server/tls does not exist" },
    { name: "add without a value fails", obj: settings(), policies: yamlAt([{ subPath: "/x", operator: "add" }]), message: 'OverridePolicy default/web rule 0 fieldOverrider[0]: yaml[0]: add at "/x" needs a value' },
    { name: "a subPath without a leading / fails", obj: settings(), policies: yamlAt([{ subPath: "log", operator: "replace", value: 1 }]), message: 'OverridePolicy default/web rule 0 fieldOverrider[0]: yaml[0]: subPath "log" must start with "/"' },
    { name: "an unknown operator fails", obj: settings(), policies: yamlAt([{ subPath: "/log", operator: "move", value: 1 }]), message: 'OverridePolicy default/web rule 0 fieldOverrider[0]: yaml[0]: unknown operator "move"' },
    { name: "a fieldPath without a leading / fails", obj: settings(), policies: yamlAt([{ subPath: "/log", operator: "replace", value: 1 }], "data/config.yaml"), message: 'OverridePolicy default/web rule 0 fieldOverrider[0]: fieldPath "data/config.yaml" must start with "/"' },
    {
      name: "json and yaml together fail",
      obj: settings(),
      policies: rule({ fieldOverrider: [{ fieldPath: "/data/config.yaml", yaml: [{ subPath: "/log", operator: "remove" }], json: [{ subPath: "/log", operator: "remove" }] }] }),
      message: "OverridePolicy default/web rule 0 fieldOverrider[0]: json and yaml are both set: give one of them",
    },
    { name: "neither json nor yaml fails (Karmada would empty the field)", obj: settings(), policies: rule({ fieldOverrider: [{ fieldPath: "/data/config.yaml", yaml: [] }] }), message: "OverridePolicy default/web rule 0 fieldOverrider[0]: json or yaml must hold at least one operation" },
    {
      name: "a fieldOverrider may not change the object's name",
      obj: settings(),
      policies: rule({ fieldOverrider: [{ fieldPath: "/metadata/name", yaml: [{ subPath: "", operator: "replace", value: "other" }] }] }),
      message: 'OverridePolicy default/web rule 0 fieldOverrider[0]: may not change metadata.name ("settings" → "other\\n"): an override cannot rename, move or retype the object',
    },
  ]);
});

describe("applyOverrides: fieldOverrider (JSON)", () => {
  runOkCases([
    {
      name: "replace a sub-field: written back compact, keys in their order",
      obj: settings(),
      policies: jsonAt([{ subPath: "/db/host", operator: "replace", value: "db.eu" }, { subPath: "/replicas/-", operator: "add", value: 3 }]),
      want: { "/data/config.json": '{"db":{"host":"db.eu","port":5432},"replicas":[1,2,3]}' },
    },
    { name: "remove a sub-field", obj: settings(), policies: jsonAt([{ subPath: "/db/port", operator: "remove" }]), want: { "/data/config.json": '{"db":{"host":"db.local"},"replicas":[1,2]}' } },
  ]);
  runFailCases([
    { name: "JSON that does not parse fails", obj: settings({ "config.json": "{db: 1}" }), policies: jsonAt([{ subPath: "/db", operator: "replace", value: 2 }]), message: "OverridePolicy default/web rule 0 fieldOverrider[0]: field /data/config.json is not valid JSON: Expected property name or '}' in JSON at position 1 (line 1 column 2)" },
    {
      name: "an integer beyond 2^53 fails rather than ship changed",
      obj: settings({ "config.json": '{"id": 12345678901234567890, "n": 1}' }),
      policies: jsonAt([{ subPath: "/n", operator: "replace", value: 2 }]),
      message: "OverridePolicy default/web rule 0 fieldOverrider[0]: field /data/config.json holds the integer 12345678901234567000, larger than a fieldOverrider carries exactly (2^53)",
    },
    { name: "in YAML too", obj: settings({ "config.yaml": "ids: [1, 9007199254740993]\n" }), policies: yamlAt([{ subPath: "/n", operator: "add", value: 2 }]), message: "OverridePolicy default/web rule 0 fieldOverrider[0]: field /data/config.yaml holds the integer 9007199254740992, larger than a fieldOverrider carries exactly (2^53)" },
    { name: "YAML is not JSON", obj: settings(), policies: jsonAt([{ subPath: "/log", operator: "replace", value: 2 }], "/data/config.yaml"), message: "OverridePolicy default/web rule 0 fieldOverrider[0]: field /data/config.yaml is not valid JSON: Unexpected token '#', \"# the app'\"... is not valid JSON" },
  ]);
});

describe("applyOverrides: fieldOverrider in Karmada's order", () => {
  runOkCases([
    {
      name: "after annotations (which it sees) and before plaintext (which sees its result)",
      obj: settings(),
      policies: rule({
        plaintext: [{ path: "/data/copy", operator: "add", value: "p" }],
        fieldOverrider: [{ fieldPath: "/data/config.yaml", yaml: [{ subPath: "/log", operator: "replace", value: "warn" }] }],
        labelsOverrider: [{ operator: "add", value: { l: "1" } }],
      }),
      want: { "/data/copy": "p", "/metadata/labels/l": "1", "/data/config.yaml": "log: warn\nserver:\n  hosts:\n  - a.example\n  - b.example\n  port: 8080\n" },
    },
    {
      name: "plaintext then replaces the field the fieldOverrider wrote",
      obj: settings(),
      policies: rule({ plaintext: [{ path: "/data/config.yaml", value: "x: 1\n" }], fieldOverrider: [{ fieldPath: "/data/config.yaml", yaml: [{ subPath: "/log", operator: "replace", value: "warn" }] }] }),
      want: { "/data/config.yaml": "x: 1\n" },
    },
  ]);
});

describe("applyOverrides: fieldOverrider on any input", () => {
  it("never throws, never changes its inputs, and either fails with a message or leaves a string in the field", () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    const op = fc.record({ subPath: fc.oneof(fc.constantFrom("", "/a", "/a/0", "/b/-", "/x/y"), fc.string()), operator: fc.oneof(fc.constantFrom("add", "remove", "replace"), fc.string()), value: json }, { requiredKeys: [], noNullPrototype: true });
    const overrider = fc.record(
      { fieldPath: fc.oneof(fc.constantFrom("/data/config", "/data", "/metadata/name", "/data/none"), fc.string()), json: fc.oneof(fc.array(op, { maxLength: 3 }), json), yaml: fc.oneof(fc.array(op, { maxLength: 3 }), json) },
      { requiredKeys: [], noNullPrototype: true },
    );
    const text = fc.oneof(fc.string(), json.map((v) => JSON.stringify(v)), fc.constantFrom("a: [1, 2]\nb: {c: d}\n", "a: 1\n---\nb: 2\n", "x: &a [1]\ny: *a\n", "{", "- 1\n- 2\n"));
    fc.assert(
      fc.property(text, fc.array(overrider, { minLength: 1, maxLength: 2 }), (config, fieldOverrider) => {
        const obj = settings({ config });
        const policies = rule({ fieldOverrider: fieldOverrider as never });
        const before = structuredClone([obj, policies]);
        const result = applyOverrides(obj, member1, policies);
        assert.deepEqual([obj, policies], before, "inputs unchanged");
        if (result.ok) assert.equal(typeof at(result.object, "/data/config"), "string");
        else assert.match(result.message, /^OverridePolicy default\/web rule 0 fieldOverrider\[\d\]: ./);
      }),
      { numRuns: 2000 },
    );
  });
});
