import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { evaluateJsonPath, preservedLabelState } from "./state-preservation.ts";

const status = {
  replicas: 3,
  availableReplicas: 2,
  phase: "Running",
  ready: true,
  "jobs.example/id": "j-42",
  checkpoint: { id: "cp-7", path: "s3://bucket/cp-7" },
  conditions: [
    { type: "Available", status: "True", reason: "MinimumReplicasAvailable" },
    { type: "Progressing", status: "False", reason: "ProgressDeadlineExceeded" },
  ],
  savepoints: [{ id: "sp-1", size: 10 }, { id: "sp-2", size: 30 }],
};

describe("evaluateJsonPath: Kubernetes JSONPath templates over a workload's status", () => {
  const cases: { template: string; want: string | RegExp }[] = [
    { template: "{.replicas}", want: "3" },
    { template: "{.phase}", want: "Running" },
    { template: "{.ready}", want: "true" },
    { template: "{$.checkpoint.id}", want: "cp-7" },
    { template: "{.checkpoint['id']}", want: "cp-7" },
    { template: "{['jobs.example/id']}", want: "j-42" },
    { template: "{.conditions[0].type}", want: "Available" },
    { template: "{.conditions[-1].reason}", want: "ProgressDeadlineExceeded" },
    { template: "{.conditions[*].type}", want: "Available Progressing" },
    { template: "{.savepoints[0:1].id}", want: "sp-1" },
    { template: '{.conditions[?(@.type=="Progressing")].reason}', want: "ProgressDeadlineExceeded" },
    { template: "{.savepoints[?(@.size>20)].id}", want: "sp-2" },
    { template: "{.savepoints[?(@.size)].id}", want: "sp-1 sp-2" },
    { template: "{..id}", want: "cp-7 sp-1 sp-2" },
    { template: "cp={.checkpoint.id},r={.replicas}", want: "cp=cp-7,r=3" },
    { template: "{.checkpoint}", want: '{"id":"cp-7","path":"s3://bucket/cp-7"}' },
    // Missing keys are refused, as Karmada runs client-go's jsonpath.
    { template: "{.missing}", want: /missing is not found/ },
    { template: "{.conditions[5].type}", want: /not found/ },
    { template: '{.conditions[?(@.type=="Nope")].reason}', want: /not found/ },
    { template: "{.replicas", want: /unclosed/ },
    { template: "{range .conditions[*]}{.type}{end}", want: /not supported/ },
    { template: "{.a b}", want: /cannot parse/ },
  ];
  for (const c of cases) {
    it(`${c.template} → ${String(c.want)}`, () => {
      const r = evaluateJsonPath(c.template, status);
      if (typeof c.want === "string") assert.deepEqual(r, { ok: true, text: c.want });
      else {
        assert.equal(r.ok, false);
        assert.match(r.ok ? "" : r.message, c.want);
      }
    });
  }
});

describe("preservedLabelState: each rule's value as a label", () => {
  it("reads every rule", () => {
    const r = preservedLabelState({ rules: [{ aliasLabelName: "failover.example/replicas", jsonPath: "{.replicas}" }, { aliasLabelName: "checkpoint", jsonPath: "{.checkpoint.id}" }] }, status);
    assert.deepEqual(r, { ok: true, labels: { "failover.example/replicas": "3", checkpoint: "cp-7" } });
  });
  it("no rules: no labels, whatever the status", () => {
    assert.deepEqual(preservedLabelState(undefined, undefined), { ok: true, labels: {} });
    assert.deepEqual(preservedLabelState({ rules: [] }, undefined), { ok: true, labels: {} });
  });
  it("a status never reported names the rule", () => {
    const r = preservedLabelState({ rules: [{ aliasLabelName: "a", jsonPath: "{.replicas}" }] }, undefined);
    assert.deepEqual(r, { ok: false, rule: "a", message: "the workload's status has not been reported from that cluster" });
  });
  it("a value that is no label value is refused, naming the rule", () => {
    const r = preservedLabelState({ rules: [{ aliasLabelName: "ok", jsonPath: "{.replicas}" }, { aliasLabelName: "path", jsonPath: "{.checkpoint.path}" }] }, status);
    assert.equal(r.ok, false);
    assert.equal(r.ok ? "" : r.rule, "path");
    assert.match(r.ok ? "" : r.message, /not a label value/);
  });
  it("a missing key names the rule", () => {
    const r = preservedLabelState({ rules: [{ aliasLabelName: "x", jsonPath: "{.nope}" }] }, status);
    assert.equal(r.ok ? "" : r.rule, "x");
  });
});
