import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AggregatedStatusItem, KubeObject } from "../../shared/api/types.ts";
import { NATIVE_INTERPRETERS } from "../../shared/interpreter/registry.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import { silentLogger } from "../../shared/logger.ts";
import { templateKey } from "../../shared/work-key.ts";
import { fakeTemplates } from "../detector/template-informers.fixtures.ts";
import type { TemplateInformers } from "../detector/template-informers.ts";
import { WorkStore } from "../works/work-store.ts";
import { TemplateStatusWriter } from "./template-status-writer.ts";

const deployment: KubeObject & { status?: Record<string, unknown> } = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d", namespace: "n", resourceVersion: "10" }, spec: { replicas: 2 } };
const ready = (clusterName: string, n: number): AggregatedStatusItem => ({ clusterName, applied: true, health: "Healthy", status: { replicas: n, readyReplicas: n, availableReplicas: n, updatedReplicas: n } });

function setup() {
  const patches: unknown[] = [];
  const rest = { mergePatch: async (_path: string, body: unknown) => (patches.push(body), {}) } as unknown as KubeRest;
  const templates = { ...fakeTemplates([deployment]), resource: () => ({ apiVersion: "apps/v1", kind: "Deployment", plural: "deployments", namespaced: true }) } as unknown as TemplateInformers;
  const writer = new TemplateStatusWriter({ templates, works: new WorkStore(), interpreters: NATIVE_INTERPRETERS, rest, log: silentLogger() });
  return { writer, patches, key: templateKey(deployment) };
}

describe("TemplateStatusWriter", () => {
  it("writes a patch once while the template's informer has not shown that write yet", async () => {
    const { writer, patches, key } = setup();
    await writer.write(key, ["m1"], [ready("m1", 1)], undefined);
    await writer.write(key, ["m1"], [ready("m1", 1)], undefined);
    assert.equal(patches.length, 1, "the second reconcile ran before our write came back: nothing written again");
    assert.equal(writer.writes, 1);
    await writer.write(key, ["m1"], [ready("m1", 2)], undefined);
    assert.equal(patches.length, 2, "a different sum is written at once");
  });

  it("once the template moved on (someone else's write), the same patch is written again if the template differs from it", async () => {
    const { writer, patches, key } = setup();
    await writer.write(key, ["m1"], [ready("m1", 1)], undefined);
    deployment.metadata.resourceVersion = "11"; // another writer changed the template; its status still differs
    await writer.write(key, ["m1"], [ready("m1", 1)], undefined);
    assert.equal(patches.length, 2);
    writer.forget(key);
    deployment.metadata.resourceVersion = "10";
  });
});
