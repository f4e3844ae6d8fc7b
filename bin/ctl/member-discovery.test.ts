import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readPath, resolveIn, servedResources } from "./member-discovery.ts";
import { getTarget } from "./member-get.ts";

// Excerpts of a v1.36 apiserver's aggregated discovery (/api and /apis).
const core = {
  kind: "APIGroupDiscoveryList",
  apiVersion: "apidiscovery.k8s.io/v2",
  items: [
    {
      metadata: {},
      versions: [
        {
          version: "v1",
          resources: [
            { resource: "pods", responseKind: { group: "", version: "", kind: "Pod" }, scope: "Namespaced", singularResource: "pod", shortNames: ["po"], subresources: [{ subresource: "log" }] },
            { resource: "nodes", responseKind: { group: "", version: "", kind: "Node" }, scope: "Cluster", singularResource: "node", shortNames: ["no"] },
            { resource: "events", responseKind: { group: "", version: "", kind: "Event" }, scope: "Namespaced", singularResource: "event", shortNames: ["ev"] },
          ],
        },
      ],
    },
  ],
};
const groups = {
  kind: "APIGroupDiscoveryList",
  apiVersion: "apidiscovery.k8s.io/v2",
  items: [
    { metadata: { name: "apps" }, versions: [{ version: "v1", resources: [{ resource: "deployments", responseKind: { kind: "Deployment" }, scope: "Namespaced", singularResource: "deployment", shortNames: ["deploy"] }] }] },
    { metadata: { name: "events.k8s.io" }, versions: [{ version: "v1", resources: [{ resource: "events", responseKind: { kind: "Event" }, scope: "Namespaced", singularResource: "event", shortNames: ["ev"] }] }] },
    {
      metadata: { name: "example.com" },
      versions: [
        { version: "v2", resources: [{ resource: "widgets", responseKind: { kind: "Widget" }, scope: "Cluster", singularResource: "widget" }] },
        { version: "v1", resources: [{ resource: "widgets", responseKind: { kind: "Widget" }, scope: "Cluster", singularResource: "widget" }] },
      ],
    },
  ],
};

describe("a member's resources from its aggregated discovery", () => {
  const served = servedResources([core, groups]);
  assert.ok(!("error" in served));

  it("lists each group's preferred (first) version, without subresources", () => {
    assert.deepEqual(served.map((r) => `${r.plural}.${r.version}.${r.group}`), ["pods.v1.", "nodes.v1.", "events.v1.", "deployments.v1.apps", "events.v1.events.k8s.io", "widgets.v2.example.com"]);
  });

  it("refuses the older discovery documents (an apiserver before 1.26)", () => {
    assert.match((servedResources([{ kind: "APIVersions", versions: ["v1"] }]) as { error: string }).error, /no aggregated discovery/);
  });

  const names: [string, string | RegExp][] = [
    ["pods", "v1 Pod pods namespaced"],
    ["po", "v1 Pod pods namespaced"],
    ["Pod", "v1 Pod pods namespaced"],
    ["deploy", "apps/v1 Deployment deployments namespaced"],
    ["deployments.apps", "apps/v1 Deployment deployments namespaced"],
    ["deployments.v1.apps", "apps/v1 Deployment deployments namespaced"],
    ["nodes", "v1 Node nodes cluster"],
    ["ev", "v1 Event events namespaced"],
    ["events.events.k8s.io", "events.k8s.io/v1 Event events namespaced"],
    ["widget", "example.com/v2 Widget widgets cluster"],
    ["gadgets", /^the member serves no resource named "gadgets"$/],
  ];
  for (const [name, want] of names) {
    it(`reads ${name} as kubectl does`, () => {
      const r = resolveIn(name, served);
      if (want instanceof RegExp) assert.match("error" in r ? r.error : "resolved", want);
      else assert.equal("error" in r ? r.error : `${r.apiVersion} ${r.kind} ${r.plural} ${r.namespaced ? "namespaced" : "cluster"}`, want);
    });
  }
});

describe("what `get` reads", () => {
  const pods = { apiVersion: "v1", kind: "Pod", plural: "pods", namespaced: true };
  const nodes = { apiVersion: "v1", kind: "Node", plural: "nodes", namespaced: false };
  const deployments = { apiVersion: "apps/v1", kind: "Deployment", plural: "deployments", namespaced: true };
  const cases: [string, string][] = [
    [readPath(pods, "demo", undefined), "/api/v1/namespaces/demo/pods"],
    [readPath(pods, undefined, undefined, { labelSelector: "app=web", fieldSelector: "" }), "/api/v1/pods?labelSelector=app%3Dweb"],
    [readPath(deployments, "demo", "web"), "/apis/apps/v1/namespaces/demo/deployments/web"],
    [readPath(nodes, "demo", undefined), "/api/v1/nodes"],
    [readPath(nodes, "demo", "n1"), "/api/v1/nodes/n1"],
  ];
  for (const [have, want] of cases) it(`reads ${want}`, () => assert.equal(have, want));

  const targets: [string[], { resource: string; name: string | undefined }][] = [
    [["pods"], { resource: "pods", name: undefined }],
    [["pods", "web-1"], { resource: "pods", name: "web-1" }],
    [["deploy/web"], { resource: "deploy", name: "web" }],
  ];
  for (const [args, want] of targets) it(`takes ${args.join(" ")} as ${JSON.stringify(want)}`, () => assert.deepEqual(getTarget(args), want));
});
