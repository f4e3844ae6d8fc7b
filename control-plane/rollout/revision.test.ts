import assert from "node:assert/strict";
import { it } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import { templateRevision } from "./revision.ts";

const deployment = (replicas: number, image: string): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "shop" },
  spec: { replicas, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image }] } } },
});
const configMap = (value: string): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cfg", namespace: "shop" }, data: { key: value } });

it("templateRevision: scaling is no new revision, a change of what runs is", () => {
  assert.equal(templateRevision(deployment(2, "nginx:1")), templateRevision(deployment(7, "nginx:1")), "replicas left out");
  assert.notEqual(templateRevision(deployment(2, "nginx:1")), templateRevision(deployment(2, "nginx:2")), "a new image is a new revision");
  assert.notEqual(templateRevision(configMap("a")), templateRevision(configMap("b")), "a kind without replicas: any change");
  assert.equal(templateRevision(configMap("a")), templateRevision(configMap("a")), "the same content, the same revision");
  const template = deployment(3, "nginx:1");
  const before = structuredClone(template);
  templateRevision(template);
  assert.deepEqual(template, before, "the input is not changed");
});
