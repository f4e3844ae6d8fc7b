import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster, KubeObject, OverridePolicy } from "../../shared/api/types.ts";
import { configMap, cop, deployment, member1, member2, op, rule, runFailCases, runOkCases } from "./overrides.fixtures.ts";
import { renderClusterWorks } from "./render-works.ts";

const REFUSED = "an override cannot rename, move or retype the object";
const where = "OverridePolicy default/web rule 0";
const clusterRole: KubeObject = { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "reader" }, rules: [] };

describe("applyOverrides: an override may not change what the object is", () => {
  runFailCases([
    { name: "plaintext replace of apiVersion", policies: rule({ plaintext: [{ path: "/apiVersion", value: "apps/v1beta2" }] }), message: `${where} plaintext[0]: may not change apiVersion ("apps/v1" → "apps/v1beta2"): ${REFUSED}` },
    { name: "plaintext replace of kind", policies: rule({ plaintext: [{ path: "/kind", value: "StatefulSet" }] }), message: `${where} plaintext[0]: may not change kind ("Deployment" → "StatefulSet"): ${REFUSED}` },
    { name: "plaintext replace of metadata.name", policies: rule({ plaintext: [{ path: "/metadata/name", value: "web2" }] }), message: `${where} plaintext[0]: may not change metadata.name ("web" → "web2"): ${REFUSED}` },
    { name: "plaintext add of metadata.name (add replaces)", policies: rule({ plaintext: [{ path: "/metadata/name", operator: "add", value: "web2" }] }), message: `${where} plaintext[0]: may not change metadata.name ("web" → "web2"): ${REFUSED}` },
    { name: "plaintext replace of metadata.namespace", policies: rule({ plaintext: [{ path: "/metadata/namespace", value: "shop" }] }), message: `${where} plaintext[0]: may not change metadata.namespace ("default" → "shop"): ${REFUSED}` },
    { name: "plaintext remove of metadata.namespace", policies: rule({ plaintext: [{ path: "/metadata/namespace", operator: "remove" }] }), message: `${where} plaintext[0]: may not change metadata.namespace ("default" → absent): ${REFUSED}` },
    {
      name: "plaintext add of a namespace to a cluster-scoped object",
      obj: clusterRole,
      policies: [cop("c", [{ overriders: { plaintext: [{ path: "/metadata/namespace", operator: "add", value: "default" }] } }])],
      message: `ClusterOverridePolicy c rule 0 plaintext[0]: may not change metadata.namespace (absent → "default"): ${REFUSED}`,
    },
    {
      name: "plaintext replace of the whole metadata with another name",
      policies: rule({ plaintext: [{ path: "/metadata", value: { name: "other", namespace: "default" } }] }),
      message: `${where} plaintext[0]: may not change metadata.name ("web" → "other"): ${REFUSED}`,
    },
    { name: "plaintext replace of metadata with a non-object", policies: rule({ plaintext: [{ path: "/metadata", value: "x" }] }), message: `${where} plaintext[0]: may not change metadata.name ("web" → absent): ${REFUSED}` },
    {
      name: "a long value is cut short in the message",
      policies: rule({ plaintext: [{ path: "/kind", value: "K".repeat(200) }] }),
      message: `${where} plaintext[0]: may not change kind ("Deployment" → "${"K".repeat(66)}...): ${REFUSED}`,
    },
    {
      name: "the overrider that did it is named, after others that ran",
      policies: rule({ labelsOverrider: [{ operator: "add", value: { a: "b" } }], plaintext: [{ path: "/spec/replicas", value: 1 }, { path: "/metadata/name", value: "x" }] }),
      message: `${where} plaintext[1]: may not change metadata.name ("web" → "x"): ${REFUSED}`,
    },
    {
      name: "an imageOverrider whose predicate points at metadata.name",
      obj: configMap(),
      policies: [op("default", "web", [{ overriders: { imageOverrider: [{ predicate: { path: "/metadata/name" }, component: "Registry", operator: "replace", value: "mirror.io" }] } }])],
      message: `${where} imageOverrider[0]: may not change metadata.name ("cm" → "mirror.io/cm"): ${REFUSED}`,
    },
    {
      name: "a later rule cannot change it either, nor change it back",
      policies: [op("default", "web", [{ overriders: { plaintext: [{ path: "/spec/replicas", value: 1 }] } }, { overriders: { plaintext: [{ path: "/metadata/name", value: "x" }, { path: "/metadata/name", value: "web" }] } }])],
      message: `OverridePolicy default/web rule 1 plaintext[0]: may not change metadata.name ("web" → "x"): ${REFUSED}`,
    },
  ]);

  runOkCases([
    { name: "replacing metadata.name with the same value", policies: rule({ plaintext: [{ path: "/metadata/name", value: "web" }] }), want: { "/metadata/name": "web" } },
    {
      name: "replacing the whole metadata keeping name and namespace",
      policies: rule({ plaintext: [{ path: "/metadata", value: { name: "web", namespace: "default", labels: { only: "this" } } }] }),
      want: { "/metadata/labels": { only: "this" }, "/metadata/annotations": undefined },
    },
    { name: "other metadata: labels, annotations, generateName", policies: rule({ plaintext: [{ path: "/metadata/generateName", operator: "add", value: "w-" }], labelsOverrider: [{ operator: "add", value: { name: "x" } }] }), want: { "/metadata/labels/name": "x", "/metadata/name": "web" } },
  ]);
});

describe("renderClusterWorks: a rename override fails that cluster's Work only", () => {
  it("fails the targeted cluster with the rule and field, renders the others", () => {
    const rename: OverridePolicy = op("default", "rename", [{ targetCluster: { clusterNames: ["member2"] }, overriders: { plaintext: [{ path: "/metadata/name", value: "web-eu" }] } }]);
    const clusters = new Map<string, Cluster>([["member1", member1], ["member2", member2]]);
    const works = renderClusterWorks(deployment(), [{ name: "member1", replicas: 3 }, { name: "member2", replicas: 3 }], (n) => clusters.get(n), [rename], "Abort");
    const one = works.get("member1");
    const two = works.get("member2");
    assert.ok(one?.ok);
    assert.equal((JSON.parse(one.manifests[0]?.toString() ?? "{}") as KubeObject).metadata.name, "web");
    assert.deepEqual(two, { ok: false, message: `OverridePolicy default/rename rule 0 plaintext[0]: may not change metadata.name ("web" → "web-eu"): ${REFUSED}` });
  });
});
