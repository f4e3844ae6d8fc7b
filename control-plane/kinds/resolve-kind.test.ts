import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { apiVersionOf, resolveKind, type ServedResource } from "./resolve-kind.ts";

const served: ServedResource[] = [
  { group: "", version: "v1", kind: "ConfigMap", plural: "configmaps", singular: "configmap", shortNames: ["cm"], namespaced: true },
  { group: "", version: "v1", kind: "Event", plural: "events", singular: "event", shortNames: ["ev"], namespaced: true },
  { group: "events.k8s.io", version: "v1", kind: "Event", plural: "events", singular: "event", shortNames: ["ev"], namespaced: true },
  { group: "apps", version: "v1", kind: "Deployment", plural: "deployments", singular: "deployment", shortNames: ["deploy"], namespaced: true },
  { group: "example.com", version: "v1", kind: "Widget", plural: "widgets", singular: "widget", namespaced: false },
  { group: "other.io", version: "v2", kind: "Widget", plural: "widgets", singular: "", namespaced: false },
];

describe("resolveKind", () => {
  const cases: { name: string; want: string }[] = [
    { name: "Deployment", want: "apps/v1 Deployment" },
    { name: "deployment", want: "apps/v1 Deployment" },
    { name: "deployments", want: "apps/v1 Deployment" },
    { name: "deploy", want: "apps/v1 Deployment" },
    { name: "deployments.apps", want: "apps/v1 Deployment" },
    { name: "deployment.v1.apps", want: "apps/v1 Deployment" },
    { name: "cm", want: "v1 ConfigMap" },
    { name: "  ConfigMap ", want: "v1 ConfigMap" },
    { name: "events", want: "v1 Event" },
    { name: "events.events.k8s.io", want: "events.k8s.io/v1 Event" },
    { name: "widgets.other.io", want: "other.io/v2 Widget" },
    { name: "widget", want: "error: \"widget\" is ambiguous: widgets.example.com, widgets.other.io; name the group (e.g. widgets.example.com)" },
    { name: "deployments.extensions", want: "error: the control cluster serves no resource named \"deployments.extensions\"" },
    { name: "gadget", want: "error: the control cluster serves no resource named \"gadget\"" },
    { name: "", want: "error: no kind given" },
  ];
  for (const c of cases) {
    it(`${JSON.stringify(c.name)} → ${c.want}`, () => {
      const r = resolveKind(c.name, served);
      assert.equal("error" in r ? `error: ${r.error}` : `${apiVersionOf(r.resource)} ${r.resource.kind}`, c.want);
    });
  }
});
