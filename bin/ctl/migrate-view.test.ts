import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { migrationStructured, migrationSummary, migrationTable, type PlannedItem } from "./migrate-view.ts";

const items: PlannedItem[] = [
  { source: { apiVersion: "v1", kind: "Namespace", name: "shop" }, object: { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } }, problems: [], action: "create" },
  { source: { apiVersion: "policy.karmada.io/v1alpha1", kind: "PropagationPolicy", namespace: "shop", name: "web" }, object: { apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "web", namespace: "shop" } }, problems: ["spec.failover: not carried over", "spec.schedulerName: x"], action: "update" },
  { source: { apiVersion: "config.karmada.io/v1alpha1", kind: "ResourceInterpreterWebhookConfiguration", name: "hook" }, problems: ["webhook interpreters are not in Flotilla"], action: "skip" },
];

describe("migrate karmada output", () => {
  it("the table has a row per object with its action and problems", () => {
    const lines = migrationTable(items).split("\n");
    assert.match(lines[0] ?? "", /^KIND\s+NAMESPACE\s+NAME\s+ACTION\s+PROBLEMS$/);
    assert.match(lines[1] ?? "", /^Namespace\s+-\s+shop\s+create\s+-$/);
    assert.match(lines[2] ?? "", /^PropagationPolicy\s+shop\s+web\s+update\s+spec\.failover: not carried over; spec\.schedulerName: x$/);
    assert.match(lines[3] ?? "", /^ResourceInterpreterWebhookConfiguration\s+-\s+hook\s+skip\s+webhook interpreters/);
  });
  it("the plan's summary says nothing was written; the apply's counts what was", () => {
    assert.equal(migrationSummary(items, false), "# plan: 1 to create, 1 to update, 1 skipped; 3 problems on 2 objects; nothing was written (pass --apply)");
    const done: PlannedItem[] = items.map((i) => ({ ...i, action: i.action === "create" ? "created" : i.action === "update" ? "failed" : i.action }));
    assert.equal(migrationSummary(done, true), "# 1 created, 0 updated, 1 failed, 1 skipped; 3 problems on 2 objects; nothing was deleted");
  });
  it("-o json carries source, action, problems and the object written", () => {
    const out = JSON.parse(migrationStructured(items, false, "json")) as { applied: boolean; items: { action: string; object?: unknown }[] };
    assert.equal(out.applied, false);
    assert.deepEqual(out.items.map((i) => i.action), ["create", "update", "skip"]);
    assert.equal(out.items[2]?.object, undefined);
  });
});
