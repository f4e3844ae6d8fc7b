// Issue 26: no Karmada v1.19 policy field is silently ignored. Each is acted on (a test shows
// it), stored and reported as not acted on (PolicyFieldsSupported=False on the binding), or not
// in the schema at all (kubectl's strict field validation refuses it).
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { loadCrds } from "../control-plane/crd-install/crds.ts";
import { UNACTED_FIELDS, unactedFields } from "../control-plane/scheduling/unacted-fields.ts";
import type { KubeObject, PropagationPolicy, PropagationSpec } from "../shared/api/types.ts";
import { type FieldVerdict, KARMADA_OVERRIDE_FIELDS, KARMADA_PROPAGATION_FIELDS } from "./karmada-fields.fixtures.ts";

interface Schema {
  properties?: Record<string, Schema>;
  items?: Schema;
}

/** Every field path under spec, lists written `name[]`, as the table writes them. */
function specPaths(crd: KubeObject): Set<string> {
  const versions = (crd.spec as { versions: { schema: { openAPIV3Schema: Schema } }[] }).versions;
  const spec = versions[0]?.schema.openAPIV3Schema.properties?.spec;
  const out = new Set<string>();
  const walk = (s: Schema | undefined, prefix: string) => {
    for (const [k, v] of Object.entries(s?.properties ?? {})) {
      out.add(prefix + k);
      walk(v, `${prefix}${k}.`);
    }
    if (s?.items) walk(s.items, `${prefix.replace(/\.$/, "")}[].`);
  };
  walk(spec, "spec.");
  return out;
}

const crds = await loadCrds();
const pathsOf = (kind: string) => specPaths(crds.find((c) => (c.spec as { names: { kind: string } }).names.kind === kind) as KubeObject);
const leaf = (path: string) => path.replace(/\[\]/g, "").split(".").at(-1) as string;

function holdsTable(table: readonly FieldVerdict[], kinds: string[]): void {
  for (const kind of kinds) {
    const ours = pathsOf(kind);
    it(`${kind}: every field Flotilla acts on or reports is in its schema, and every missing one is not`, () => {
      for (const row of table) {
        if ("missing" in row) assert.ok(!ours.has(row.path), `${row.path} is in the ${kind} schema: say what Flotilla does with it`);
        else assert.ok(ours.has(row.path), `${row.path} is not in the ${kind} schema`);
      }
    });
  }
  it("each field marked acted names a test that exists and reads the field", () => {
    for (const row of table) {
      if (!("acted" in row)) continue;
      assert.ok(existsSync(row.acted), `${row.path}: ${row.acted} does not exist`);
      assert.ok(readFileSync(row.acted, "utf8").includes(leaf(row.path)), `${row.path}: ${row.acted} never mentions ${leaf(row.path)}`);
    }
  });
}

describe("Karmada v1.19 PropagationPolicy fields", () => {
  holdsTable(KARMADA_PROPAGATION_FIELDS, ["PropagationPolicy", "ClusterPropagationPolicy"]);

  it("lists Karmada's 125 fields once each", () => {
    assert.equal(KARMADA_PROPAGATION_FIELDS.length, 125);
    assert.equal(new Set(KARMADA_PROPAGATION_FIELDS.map((r) => r.path)).size, 125);
  });

  it("marks unacted exactly the fields unacted-fields.ts reports", () => {
    const unacted = KARMADA_PROPAGATION_FIELDS.filter((r) => "unacted" in r).map((r) => r.path);
    const under = (path: string) => UNACTED_FIELDS.find((f) => path === f.path || path.startsWith(`${f.path}.`) || path.startsWith(`${f.path}[]`));
    for (const p of unacted) assert.ok(under(p), `${p} is marked unacted but no binding would say so`);
    for (const f of UNACTED_FIELDS) assert.ok(unacted.includes(f.path), `${f.path} is reported but the table does not mark it unacted`);
  });

  // One policy per reported field, setting it and nothing else: the binding names exactly that field.
  const samples: Record<string, Partial<PropagationSpec>> = {
  };
  for (const f of UNACTED_FIELDS) {
    it(`a policy setting ${f.path} is reported, one without it is not`, () => {
      const spec = samples[f.path];
      assert.ok(spec, `add a sample policy for ${f.path}`);
      const policy = (s: Partial<PropagationSpec>): PropagationPolicy => ({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "p", namespace: "ns" }, spec: { resourceSelectors: [], ...s } });
      assert.deepEqual(unactedFields(policy(spec)), [f.path]);
      assert.deepEqual(unactedFields(policy({ placement: { clusterAffinity: { clusterNames: ["m1"] } } })), []);
    });
  }
});

describe("Karmada v1.19 OverridePolicy fields", () => {
  holdsTable(KARMADA_OVERRIDE_FIELDS, ["OverridePolicy", "ClusterOverridePolicy"]);

  it("lists Karmada's 110 fields once each", () => {
    assert.equal(new Set(KARMADA_OVERRIDE_FIELDS.map((r) => r.path)).size, 110);
  });
});
