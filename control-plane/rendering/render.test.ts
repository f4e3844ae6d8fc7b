import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import { contentHash } from "../../shared/content-hash.ts";
import { renderWork } from "./render.ts";
import type { RenderOptions } from "./render.ts";

const deployment: KubeObject = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "default", uid: "u1", resourceVersion: "7", generation: 2 },
  spec: { replicas: 6, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: {} } },
  status: { replicas: 6 },
};

const cleanDeployment = (replicas: number): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "default" },
  spec: { replicas, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: {} } },
});

const configMap: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", uid: "u2" }, data: { k: "v" } };

describe("renderWork", () => {
  const cases: { name: string; template: KubeObject; opts: RenderOptions; want: KubeObject[] }[] = [
    { name: "cleans the template", template: deployment, opts: {}, want: [cleanDeployment(6)] },
    { name: "sets this cluster's replicas", template: deployment, opts: { replicas: 2 }, want: [cleanDeployment(2)] },
    { name: "sets zero replicas", template: deployment, opts: { replicas: 0 }, want: [cleanDeployment(0)] },
    {
      name: "does not add replicas to an object without spec.replicas",
      template: configMap,
      opts: { replicas: 3 },
      want: [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { k: "v" } }],
    },
    {
      name: "does not add replicas to a spec that lacks them",
      template: { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" }, spec: { size: 1 } },
      opts: { replicas: 3 },
      want: [{ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" }, spec: { size: 1 } }],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const before = structuredClone(c.template);
      const got = renderWork(c.template, c.opts);
      assert.deepEqual(got.manifests, c.want);
      assert.equal(got.hash, contentHash(c.want));
      assert.deepEqual(c.template, before, "the template is not mutated");
    });
  }

  const hashCases: { name: string; a: [KubeObject, RenderOptions]; b: [KubeObject, RenderOptions]; same: boolean }[] = [
    { name: "the same inputs hash the same", a: [deployment, { replicas: 2 }], b: [structuredClone(deployment), { replicas: 2 }], same: true },
    {
      name: "server-set fields do not change the hash",
      a: [deployment, { replicas: 2 }],
      b: [{ ...deployment, metadata: { ...deployment.metadata, resourceVersion: "8" }, status: { replicas: 1 } }, { replicas: 2 }],
      same: true,
    },
    { name: "replicas given equal to the template's hash as if not given", a: [deployment, { replicas: 6 }], b: [deployment, {}], same: true },
    { name: "different replicas hash differently", a: [deployment, { replicas: 2 }], b: [deployment, { replicas: 3 }], same: false },
  ];
  for (const c of hashCases) {
    it(c.name, () => assert.equal(renderWork(...c.a).hash === renderWork(...c.b).hash, c.same));
  }

  const badReplicas: { name: string; replicas: number }[] = [
    { name: "negative", replicas: -1 },
    { name: "fractional", replicas: 1.5 },
    { name: "NaN", replicas: NaN },
  ];
  for (const c of badReplicas) {
    it(`refuses ${c.name} replicas`, () => assert.throws(() => renderWork(deployment, { replicas: c.replicas }), RangeError));
  }
});
