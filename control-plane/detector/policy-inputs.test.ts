import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import type { PropagationPolicy, ResourceBinding } from "../../shared/api/types.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import { silentLogger } from "../../shared/logger.ts";
import { Caches } from "../caches/caches.ts";
import { fakeInformers } from "../caches/fake-informer.fixtures.ts";
import { onPolicyInputs, priorityLookup, priorityQueue } from "./policy-inputs.ts";

const binding = (name: string, priority?: number): ResourceBinding => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceBinding",
  metadata: { name: `${name}-deployment`, namespace: "a", resourceVersion: "1" },
  spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "a", name, uid: name }, clusters: [], ...(priority === undefined ? {} : { schedulePriority: { priority } }) },
});
const key = (name: string) => `apps/v1/Deployment/a/${name}`;

describe("policy inputs (issue 26)", () => {
  it("the binding controller's queue takes templates by the priority their bindings record, without reading the caches", async () => {
    const fakes = fakeInformers();
    const caches = new Caches(new KubeConfig(), {} as KubeRest, silentLogger(), fakes.make);
    const q = priorityQueue(caches);
    const bindings = fakes.of<ResourceBinding>("resourcebindings");
    bindings.put(binding("batch", -10));
    bindings.put(binding("critical", 1000));
    bindings.put(binding("plain"));
    bindings.put(binding("was-high", 500));
    bindings.put({ ...binding("was-high"), metadata: { ...binding("was-high").metadata, resourceVersion: "2" } });
    bindings.read = 0;
    for (const name of ["batch", "plain", "new", "was-high", "critical"]) q.add(key(name));
    assert.equal(bindings.read, 0);
    const order: (string | undefined)[] = [];
    for (let i = 0; i < 5; i++) order.push(await q.get());
    assert.deepEqual(order, [key("critical"), key("plain"), key("new"), key("was-high"), key("batch")]);
  });

  it("a PriorityClass's value, 0 when it has none, undefined when there is no such class; its changes requeue the policies that name it", () => {
    const fakes = fakeInformers();
    const caches = new Caches(new KubeConfig(), {} as KubeRest, silentLogger(), fakes.make);
    const classes = fakes.of<{ apiVersion: string; kind: string; metadata: { name: string; resourceVersion: string }; value?: number }>("priorityclasses");
    const policy: PropagationPolicy = { apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "p", namespace: "a" }, spec: { resourceSelectors: [], schedulePriority: { priorityClassSource: "KubePriorityClass", priorityClassName: "high" } } };
    fakes.of<PropagationPolicy>("propagationpolicies").put(policy);
    const changed: string[] = [];
    onPolicyInputs(caches, (p) => changed.push(p.metadata.name ?? ""));
    const value = priorityLookup(caches);
    assert.equal(value("high"), undefined);
    classes.put({ apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: "high", resourceVersion: "1" }, value: 1000 });
    classes.put({ apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: "other", resourceVersion: "1" } });
    assert.equal(value("high"), 1000);
    assert.equal(value("other"), 0);
    assert.deepEqual(changed, ["p"]);
  });
});
