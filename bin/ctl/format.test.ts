import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { age, bytes, kindAndName, kindPlural, outputFormat, structured, table } from "./format.ts";

describe("flotillactl output", () => {
  it("aligns a table under upper-case headers", () => {
    assert.equal(table(["name", "ready"], [["member1", "True"], ["m2", "False"]]), "NAME      READY\nmember1   True\nm2        False");
  });
  it("prints a table with no rows as its header", () => assert.equal(table(["name"], []), "NAME"));
  it("prints JSON and YAML", () => {
    assert.equal(structured({ a: 1 }, "json"), '{\n  "a": 1\n}');
    assert.equal(structured({ a: [1] }, "yaml"), "a:\n  - 1");
  });
  const ages: [string, number, string][] = [
    ["", 0, "-"],
    ["not a time", 0, "-"],
    ["2026-01-01T00:00:00Z", Date.parse("2026-01-01T00:00:05Z"), "5s"],
    ["2026-01-01T00:00:00Z", Date.parse("2026-01-01T00:10:00Z"), "10m"],
    ["2026-01-01T00:00:00Z", Date.parse("2026-01-01T05:00:00Z"), "5h"],
    ["2026-01-01T00:00:00Z", Date.parse("2026-01-04T00:00:00Z"), "3d"],
  ];
  for (const [time, now, want] of ages) it(`age of ${JSON.stringify(time)} is ${want}`, () => assert.equal(age(time, now), want));
  it("reads kind/name and explains a bad one", () => {
    assert.deepEqual(kindAndName("deploy/web"), { kind: "deploy", name: "web" });
    for (const bad of [undefined, "web", "a/b/c", "/web", "deploy/"]) assert.ok("error" in kindAndName(bad), String(bad));
  });
  it("accepts only the formats a command offers", () => {
    assert.equal(outputFormat("json", ["table", "json"]), "json");
    assert.deepEqual(outputFormat("wide", ["table", "json"]), { error: '-o "wide": choose one of table, json' });
  });
  const plurals: [string, string][] = [
    ["PropagationPolicy", "PropagationPolicies"],
    ["ClusterPropagationPolicy", "ClusterPropagationPolicies"],
    ["OverridePolicy", "OverridePolicies"],
    ["ClusterOverridePolicy", "ClusterOverridePolicies"],
    ["Deployment", "Deployments"],
    ["Ingress", "Ingresses"],
    ["Gateway", "Gateways"],
  ];
  for (const [kind, want] of plurals) it(`says ${want} for more than one ${kind}`, () => assert.equal(kindPlural(kind), want));
  const sizes: [string | undefined, string][] = [[undefined, "-"], ["0", "0"], ["512", "512"], ["137438953472", "128Gi"], ["1536Mi", "1.5Gi"], ["64Gi", "64Gi"], ["lots", "lots"]];
  for (const [q, want] of sizes) it(`shows ${String(q)} as ${want}`, () => assert.equal(bytes(q), want));
});
