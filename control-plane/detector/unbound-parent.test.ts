import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bindingName } from "../scheduling/binding-spec.ts";
import { keepsEntry, parentsOfBindingName, type UnboundParent } from "./unbound-parent.ts";

describe("keepsEntry: a dependency keeps the entry of a parent whose binding is missing or deleted by hand", () => {
  const cases: { name: string; parent: UnboundParent; keeps: boolean }[] = [
    { name: "the parent lives and refers to it: kept (its workload runs where it ran)", parent: { state: "lives", refers: true }, keeps: true },
    { name: "the parent lives and no longer refers to it: let go", parent: { state: "lives", refers: false }, keeps: false },
    { name: "the parent's template is gone (deleted, being deleted): let go", parent: { state: "gone" }, keeps: false },
    { name: "the parent cannot be told (kind not watched, a shortened name): kept", parent: { state: "unknown" }, keeps: true },
  ];
  for (const c of cases) it(c.name, () => assert.equal(keepsEntry(c.parent), c.keeps));
});

describe("parentsOfBindingName: the parents a binding name could bind, among the watched kinds", () => {
  const deployment = { apiVersion: "apps/v1", kind: "Deployment" };
  const alpha = { apiVersion: "alpha.example/v1", kind: "Widget" };
  const beta = { apiVersion: "beta.example/v1", kind: "Widget" };
  const otherDeployment = { apiVersion: "extensions/v1beta1", kind: "Deployment" };
  const kinds = [deployment, alpha, beta];
  const long = "a".repeat(250);
  const cases: { name: string; binding: string; kinds?: { apiVersion: string; kind: string }[]; want: { kind: { apiVersion: string; kind: string }; name: string }[] }[] = [
    { name: "a core-like group: <name>-<kind>", binding: bindingName({ ...deployment, name: "web" }), want: [{ kind: deployment, name: "web" }] },
    { name: "a name with dashes", binding: bindingName({ ...deployment, name: "my-web-app" }), want: [{ kind: deployment, name: "my-web-app" }] },
    { name: "a group with a dot: the group's digest tells the two Widgets apart", binding: bindingName({ ...beta, name: "w" }), want: [{ kind: beta, name: "w" }] },
    { name: "…and the other", binding: bindingName({ ...alpha, name: "w" }), want: [{ kind: alpha, name: "w" }] },
    { name: "two groups without a dot share the suffix: both", binding: bindingName({ ...deployment, name: "web" }), kinds: [deployment, otherDeployment], want: [{ kind: deployment, name: "web" }, { kind: otherDeployment, name: "web" }] },
    { name: "a kind not watched: cannot be told", binding: bindingName({ apiVersion: "batch/v1", kind: "Job", name: "j" }), want: [] },
    { name: "a shortened name (a hash ends it): cannot be told", binding: bindingName({ ...deployment, name: long }), want: [] },
    { name: "just the suffix: no name", binding: "-deployment", want: [] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(parentsOfBindingName(c.binding, c.kinds ?? kinds), c.want));
});
