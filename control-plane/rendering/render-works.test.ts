import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster, KubeObject, OverridePolicy } from "../../shared/api/types.ts";
import { InterpreterError, type KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import { renderClusterWorks } from "./render-works.ts";

const template: KubeObject = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "default", uid: "u", resourceVersion: "9" },
  spec: { replicas: 3, template: { spec: { containers: [{ name: "c", image: "nginx" }] } } },
};
const cluster = (name: string, region: string): Cluster => ({ apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name, labels: { region } }, spec: {} });
const clusters = new Map([["a", cluster("a", "eu")], ["b", cluster("b", "us")], ["c", cluster("c", "us")]]);
const euImage: OverridePolicy = {
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "OverridePolicy",
  metadata: { name: "eu", namespace: "default" },
  spec: { overrideRules: [{ targetCluster: { labelSelector: { matchLabels: { region: "eu" } } }, overriders: { imageOverrider: [{ component: "Registry", operator: "replace", value: "eu.example.com" }] } }] },
};
const broken: OverridePolicy = {
  ...euImage,
  spec: { overrideRules: [{ targetCluster: { clusterNames: ["b"] }, overriders: { plaintext: [{ path: "/spec/missing/x", operator: "remove" }] } }] },
};
const parse = (w: { ok: true; manifests: Buffer[] }) => JSON.parse(w.manifests[0]?.toString() ?? "{}") as { spec: { replicas: number; template: { spec: { containers: { image: string }[] } } }; metadata: Record<string, unknown> };

describe("renderClusterWorks", () => {
  it("renders the cleaned template with each target's replicas, shared where nothing differs", () => {
    const works = renderClusterWorks(template, [{ name: "b", replicas: 3 }, { name: "c", replicas: 3 }, { name: "a", replicas: 1 }], (n) => clusters.get(n), [], "Abort");
    const [a, b, c] = ["a", "b", "c"].map((n) => works.get(n));
    assert.ok(a?.ok && b?.ok && c?.ok);
    assert.equal(parse(a).spec.replicas, 1);
    assert.equal(parse(b).spec.replicas, 3);
    assert.equal(b, c, "same replicas, no override: one shared Work");
    assert.notEqual(a.hash, b.hash);
    assert.equal(parse(b).metadata.resourceVersion, undefined, "server-set fields are dropped");
  });

  it("applies overrides only where their rules target, and reports a rule that cannot apply for that cluster only", () => {
    const works = renderClusterWorks(template, [{ name: "a", replicas: 3 }, { name: "b", replicas: 3 }], (n) => clusters.get(n), [euImage], "Abort");
    const a = works.get("a");
    const b = works.get("b");
    assert.ok(a?.ok && b?.ok);
    assert.equal(parse(a).spec.template.spec.containers[0]?.image, "eu.example.com/nginx");
    assert.equal(parse(b).spec.template.spec.containers[0]?.image, "nginx");
    const failing = renderClusterWorks(template, [{ name: "a", replicas: 3 }, { name: "b", replicas: 3 }], (n) => clusters.get(n), [broken], "Abort");
    assert.equal(failing.get("a")?.ok, true);
    const fb = failing.get("b");
    assert.ok(fb !== undefined && !fb.ok);
    assert.match(fb.message, /missing/);
  });

  it("changes the hash when conflictResolution changes (the agent must learn it)", () => {
    const t = [{ name: "b", replicas: 3 }];
    const h1 = renderClusterWorks(template, t, (n) => clusters.get(n), [], "Abort").get("b");
    const h2 = renderClusterWorks(template, t, (n) => clusters.get(n), [], "Overwrite").get("b");
    assert.ok(h1?.ok && h2?.ok);
    assert.notEqual(h1.hash, h2.hash);
  });
});

describe("renderClusterWorks with a kind's interpreter", () => {
  const widget: KubeObject = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "ns" }, spec: { size: 4 } };
  const targets = [
    { name: "member1", replicas: 1 },
    { name: "member2", replicas: 3 },
  ];

  it("a ReviseReplica that fails for one share gives those clusters an error (they keep their Works), the others their copies", () => {
    const interpreter: KindInterpreter = {
      reviseReplica: (o, replicas) => {
        if (replicas === 3) throw new InterpreterError("ReviseReplica", "luaScript:2: attempt to index a nil value");
        return { ...o, spec: { size: replicas } };
      },
    };
    const works = renderClusterWorks(widget, targets, () => undefined, [], "Abort", true, interpreter);
    const m1 = works.get("member1");
    assert.ok(m1?.ok);
    assert.deepEqual(JSON.parse(m1.manifests[0]?.toString() ?? "{}").spec, { size: 1 });
    assert.deepEqual(works.get("member2"), { ok: false, message: "InterpreterFailed: ReviseReplica: luaScript:2: attempt to index a nil value" });
  });

  it("any other error is a programming error and is thrown", () => {
    const interpreter: KindInterpreter = {
      reviseReplica: () => {
        throw new TypeError("boom");
      },
    };
    assert.throws(() => renderClusterWorks(widget, targets, () => undefined, [], "Abort", true, interpreter), TypeError);
  });
});
