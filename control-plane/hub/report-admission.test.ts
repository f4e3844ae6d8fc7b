import assert from "node:assert/strict";
import { it } from "node:test";
import fc from "fast-check";
import { admitReport, type ReportFacts } from "./report-admission.ts";

const facts = (f: Partial<ReportFacts>): ReportFacts => ({ inStore: false, sentOnStream: false, recorded: false, ...f });

it("takes reports only about Works the hub sent to the reporting cluster", () => {
  const table: [string, ReportFacts, boolean][] = [
    ["a Work in the store for the cluster", facts({ inStore: true }), true],
    ["a Work sent on this stream, since removed from the store (its deletion confirmation)", facts({ sentOnStream: true }), true],
    ["a Work the control plane recorded the cluster as holding (after a restart)", facts({ recorded: true }), true],
    ["everything known", facts({ inStore: true, sentOnStream: true, recorded: true }), true],
    ["another cluster's Work (a forged WaitingForRemoval)", facts({}), false],
  ];
  for (const [name, f, accept] of table) {
    const v = admitReport(f);
    assert.equal(v.accept, accept, name);
    if (!v.accept) assert.equal(v.reason, "NotSentToCluster", name);
  }
});

it("gives a defined verdict for every combination of facts", () => {
  fc.assert(
    fc.property(fc.record({ inStore: fc.boolean(), sentOnStream: fc.boolean(), recorded: fc.boolean() }), (f) => {
      const v = admitReport(f);
      assert.equal(v.accept, f.inStore || f.sentOnStream || f.recorded);
    }),
  );
});
