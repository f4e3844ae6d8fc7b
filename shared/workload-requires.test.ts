import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LABELS, type ResourceBinding } from "./api/types.ts";
import { MAX_REQUIRES, requiresAnnotation, requiresOf } from "./workload-requires.ts";

const binding = (propagateDeps: boolean, value: string | undefined): ResourceBinding => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceBinding",
  metadata: { name: "web-deployment", namespace: "app", ...(value === undefined ? {} : { annotations: { [LABELS.requires]: value } }) },
  spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "app", name: "web" }, clusters: [], ...(propagateDeps ? { propagateDeps: true } : {}) },
});

describe("a workload's requires annotation", () => {
  const cases: { name: string; keys: string[]; want: string | undefined }[] = [
    { name: "none: no annotation", keys: [], want: undefined },
    { name: "sorted, once each", keys: ["core/v1/Secret/app/b", "core/v1/ConfigMap/app/a", "core/v1/Secret/app/b"], want: "core/v1/ConfigMap/app/a,core/v1/Secret/app/b" },
  ];
  for (const c of cases) it(c.name, () => assert.equal(requiresAnnotation(c.keys), c.want));

  it(`at most ${MAX_REQUIRES} keys`, () => {
    const keys = Array.from({ length: MAX_REQUIRES + 5 }, (_, i) => `core/v1/ConfigMap/app/c${String(i).padStart(4, "0")}`);
    assert.equal(requiresAnnotation(keys)?.split(",").length, MAX_REQUIRES);
  });

  const reads: { name: string; b: ResourceBinding; want: string[] }[] = [
    { name: "read back under propagateDeps", b: binding(true, "core/v1/ConfigMap/app/a,core/v1/Secret/app/b"), want: ["core/v1/ConfigMap/app/a", "core/v1/Secret/app/b"] },
    { name: "a binding without propagateDeps (its workload still refers to what it held)", b: binding(false, "core/v1/ConfigMap/app/a"), want: ["core/v1/ConfigMap/app/a"] },
    { name: "no annotation", b: binding(true, undefined), want: [] },
    { name: "an empty one", b: binding(true, ""), want: [] },
  ];
  for (const c of reads) it(c.name, () => assert.deepEqual(requiresOf(c.b), c.want));
});
