import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AggregatedStatusItem, AggregatedSummary, ResourceBinding } from "../../shared/api/types.ts";
import { templateKeyOfBinding } from "../../shared/work-key.ts";
import { BindingEntries } from "./binding-entries.ts";

const ok = (clusterName: string): AggregatedStatusItem => ({ clusterName, applied: true, health: "Healthy", reason: "" });
const binding = (targets: string[], listed: AggregatedStatusItem[], summary?: Partial<AggregatedSummary>): ResourceBinding =>
  ({
    apiVersion: "work.karmada.io/v1alpha2",
    kind: "ResourceBinding",
    metadata: { name: "web-deployment", namespace: "default", labels: {} },
    spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", name: "web", namespace: "default" }, clusters: targets.map((name) => ({ name })) },
    status: { aggregatedStatus: listed, ...(summary ? { aggregatedSummary: { clusters: targets.length, reported: 0, applied: 0, asDesired: 0, omittedEntries: 0, ...summary } } : {}) },
  }) as ResourceBinding;

describe("BindingEntries", () => {
  it("a bounded binding reads every entry from memory; one that lists them all, its own", () => {
    const store = new BindingEntries();
    const b = binding(["a", "b"], [], { reported: 2 });
    store.set(templateKeyOfBinding(b), [ok("a"), ok("b")], true);
    assert.deepEqual(store.of(b).map((i) => i.clusterName), ["a", "b"]);
    assert.deepEqual(store.complete(b).status?.aggregatedStatus?.map((i) => i.clusterName), ["a", "b"]);
    store.set(templateKeyOfBinding(b), [ok("a")], false);
    assert.deepEqual(store.of(b), [], "unbounded again: the binding's own list");
    assert.equal(store.complete(b), b);
  });
  const cases: { name: string; memory?: string[]; listed: string[]; reported: number; removing?: string[]; want: boolean }[] = [
    { name: "no memory after a restart, the status left clusters out: incomplete", listed: [], reported: 3, want: true },
    { name: "every counted cluster in memory: complete", memory: ["a", "b", "c"], listed: [], reported: 3, want: false },
    { name: "a binding that lists every cluster: complete", listed: ["a", "b", "c"], reported: 3, want: false },
    { name: "removals are not counted as reported", memory: ["a", "b"], removing: ["x"], listed: [], reported: 3, want: true },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const store = new BindingEntries();
      const b = binding(["a", "b", "c"], c.listed.map(ok), { reported: c.reported });
      const removals = (c.removing ?? []).map((n): AggregatedStatusItem => ({ clusterName: n, reason: "WaitingForRemoval" }));
      if (c.memory) store.set(templateKeyOfBinding(b), [...c.memory.map(ok), ...removals], true);
      assert.equal(store.incomplete(b), c.want);
    });
  }
  it("a binding without a summary (written before issue 25) is never incomplete", () => {
    assert.equal(new BindingEntries().incomplete(binding(["a"], [])), false);
  });
});
