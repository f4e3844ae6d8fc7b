import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LABELS, type ResourceBinding } from "../../shared/api/types.ts";
import { RequiresIndex } from "./requires-index.ts";

const conf = "core/v1/ConfigMap/app/conf";
const token = "core/v1/Secret/app/token";
const workload = (name: string, requires: string[], extra: { propagateDeps?: boolean; deleting?: boolean } = {}): ResourceBinding => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceBinding",
  metadata: { name, namespace: "app", annotations: { [LABELS.requires]: requires.join(",") }, ...(extra.deleting ? { deletionTimestamp: "2026-11-30T10:00:00Z" } : {}) },
  spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "app", name }, clusters: [], ...(extra.propagateDeps === false ? {} : { propagateDeps: true }) },
});

describe("RequiresIndex", () => {
  it("files a workload without propagateDeps too (it still refers to what it held)", () => {
    const index = new RequiresIndex();
    index.set(workload("web-deployment", [conf], { propagateDeps: false }));
    assert.deepEqual(index.requiring(conf), ["app/web-deployment"]);
  });

  it("files each workload under what it requires, and refiles it on change", () => {
    const index = new RequiresIndex();
    index.set(workload("web-deployment", [conf, token]));
    index.set(workload("api-deployment", [conf]));
    assert.deepEqual(index.requiring(conf).sort(), ["app/api-deployment", "app/web-deployment"]);
    assert.deepEqual(index.requiring(token), ["app/web-deployment"]);
    index.set(workload("web-deployment", [conf]));
    assert.deepEqual(index.requiring(token), [], "no longer required");
    index.delete(workload("api-deployment", []));
    assert.deepEqual(index.requiring(conf), ["app/web-deployment"]);
  });

  it("files a binding being deleted too (its workload may still run in a member)", () => {
    const index = new RequiresIndex();
    index.set(workload("web-deployment", [conf], { deleting: true }));
    assert.deepEqual(index.requiring(conf), ["app/web-deployment"]);
  });
});
