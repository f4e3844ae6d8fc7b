import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type GetRequest, parseGetArgs } from "./get-args.ts";

describe("parseGetArgs: what `kubectl get ARGS -o json` asks for", () => {
  const cases: { args: string[]; want: GetRequest | undefined }[] = [
    // The forms the e2e files use.
    { args: ["deploy", "-n", "shop", "web"], want: { resource: "deploy", name: "web", namespace: "shop" } },
    { args: ["deploy", "web", "-n", "shop"], want: { resource: "deploy", name: "web", namespace: "shop" } },
    { args: ["propagationpolicies.flotilla.dev", "x"], want: { resource: "propagationpolicies.flotilla.dev", name: "x" } },
    { args: ["ns"], want: { resource: "ns" } },
    { args: ["clusters"], want: { resource: "clusters" } },
    { args: ["rb", "-n", "a"], want: { resource: "rb", namespace: "a" } },
    { args: ["cm", "-n", "a", "-l", "k=v"], want: { resource: "cm", namespace: "a", labelSelector: "k=v" } },
    { args: ["rb", "-n", "a", "-l", "flotilla.dev/policy-name=reject"], want: { resource: "rb", namespace: "a", labelSelector: "flotilla.dev/policy-name=reject" } },
    { args: ["events", "-n", "a", "--field-selector", "involvedObject.kind=X,involvedObject.name=y"], want: { resource: "events", namespace: "a", fieldSelector: "involvedObject.kind=X,involvedObject.name=y" } },
    { args: ["pods", "-A"], want: { resource: "pods", allNamespaces: true } },
    { args: ["pods", "--all-namespaces"], want: { resource: "pods", allNamespaces: true } },
    { args: ["pp", "-n", "a", "web", "--show-managed-fields"], want: { resource: "pp", name: "web", namespace: "a", showManagedFields: true } },
    // pflag's other spellings of the same flags.
    { args: ["deployment/web", "-n", "shop"], want: { resource: "deployment", name: "web", namespace: "shop" } },
    { args: ["cm", "--namespace", "a"], want: { resource: "cm", namespace: "a" } },
    { args: ["cm", "--namespace=a", "x"], want: { resource: "cm", name: "x", namespace: "a" } },
    { args: ["cm", "-n=a", "x"], want: { resource: "cm", name: "x", namespace: "a" } },
    { args: ["cm", "-na", "x"], want: { resource: "cm", name: "x", namespace: "a" } },
    { args: ["cm", "-lk=v"], want: { resource: "cm", labelSelector: "k=v" } },
    { args: ["cm", "--selector=k in (a,b)"], want: { resource: "cm", labelSelector: "k in (a,b)" } },
    { args: ["cm", "--field-selector=metadata.name=x"], want: { resource: "cm", fieldSelector: "metadata.name=x" } },
    // Left to kubectl: several kinds or names, other flags, errors kubectl words itself.
    { args: ["deploy,cm,widgets.example.com", "-n", "a", "-l", "flotilla.dev/work"], want: undefined },
    { args: ["cm", "a", "b"], want: undefined },
    { args: ["cm/a", "b"], want: undefined },
    { args: ["cm/a/b"], want: undefined },
    { args: ["cm/"], want: undefined },
    { args: ["cm", "-o", "name"], want: undefined },
    { args: ["--raw", "/apis"], want: undefined },
    { args: ["cm", "-w"], want: undefined },
    { args: ["cm", "-n"], want: undefined },
    { args: ["cm", "-n", ""], want: undefined },
    { args: ["cm", "-n", "a", "-n", "b"], want: undefined },
    { args: ["cm", "-A", "-A"], want: undefined },
    { args: ["cm", "x", "-A"], want: undefined },
    { args: ["cm", "x", "-l", "k=v"], want: undefined },
    { args: ["cm", "x", "--field-selector", "a=b"], want: undefined },
    { args: ["cm", "--", "x"], want: undefined },
    { args: ["-n", "a"], want: undefined },
    { args: [], want: undefined },
  ];
  for (const c of cases) {
    it(`${JSON.stringify(c.args)} → ${c.want === undefined ? "kubectl" : JSON.stringify(c.want)}`, () => assert.deepEqual(parseGetArgs(c.args), c.want));
  }
});
