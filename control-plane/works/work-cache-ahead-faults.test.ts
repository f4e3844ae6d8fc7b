// Issue 42, an adversarial review (bindings rendered ahead of their write). Adversarial tests: each names the
// behaviour a user relies on and fails on main at 64cc46c.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import type { Cluster, KubeObject, ResourceBinding } from "../../shared/api/types.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import { silentLogger } from "../../shared/logger.ts";
import { parseWorkKey, templateKey } from "../../shared/work-key.ts";
import { BindingsAhead, MAX_AHEAD_MS } from "../caches/bindings-ahead.ts";
import { Caches } from "../caches/caches.ts";
import { fakeInformers } from "../caches/fake-informer.fixtures.ts";
import { fakeTemplates } from "../detector/template-informers.fixtures.ts";
import { writeBinding } from "../detector/write-binding.ts";
import type { TemplateInformers } from "../detector/template-informers.ts";
import { KeptAbsences } from "../hub/kept-absences.ts";
import { deletionIntent } from "../hub/deletion-intent.ts";
import { WorkCache } from "./work-cache.ts";
import { WorkStore } from "./work-store.ts";

const template: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "web", namespace: "default", uid: "u1" }, data: { v: "1" } };
const bindingOn = (clusters: string[], resourceVersion: string): ResourceBinding => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceBinding",
  metadata: { name: "web-configmap", namespace: "default", resourceVersion },
  spec: { resource: { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "web", uid: "u1" }, clusters: clusters.map((name) => ({ name })) },
});
const cluster = (name: string): Cluster => ({ apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name }, spec: {} });

function setup(now?: () => number) {
  const fakes = fakeInformers();
  const caches = new Caches(new KubeConfig(), {} as KubeRest, silentLogger(), fakes.make);
  // (An injected clock for the expiry; Caches makes its own with Date.now.)
  if (now !== undefined) (caches as { bindingsAhead: BindingsAhead }).bindingsAhead = new BindingsAhead(now);
  for (const c of ["m1", "m2"]) fakes.of<Cluster>("clusters").put(cluster(c));
  const works = new WorkStore();
  const templates = fakeTemplates([template]);
  const cache = new WorkCache({ caches, templates, works, log: silentLogger() });
  const key = templateKey(template);
  // What the hub asks (hub/index.ts): the binding from the synced informer, the template known.
  const judge = (c: string) => deletionIntent({ name: c, leaving: false, readyForMs: Number.POSITIVE_INFINITY }, caches.bindingOf(parseWorkKey(key)), { known: true, template: templates.get(parseWorkKey(key)) }, 10_000);
  return { fakes, caches, works, cache, key, judge };
}

describe("review 42: a binding rendered ahead of its write", () => {
  it("a member sent a Work ahead is never told to delete it because the informer shows an older write of the same new binding", async () => {
    const { fakes, caches, works, cache, key, judge } = setup();
    const rest = { apply: async () => ({}) } as unknown as KubeRest;
    const ahead = { bindings: caches.bindingsAhead, key, seen: () => caches.bindingOf(parseWorkKey(key)) };
    // The leader writes the new binding (on m1); the write returns, its watch event lags.
    await writeBinding(rest, "/x", bindingOn(["m1"], ""), "fm", ahead);
    cache.reconcile(key);
    // A second reconcile before that event (the template scaled, a policy edited, a cluster
    // relabelled): the informer still holds no binding, so this write is "new" too and goes ahead.
    await writeBinding(rest, "/x", bindingOn(["m1", "m2"], ""), "fm", ahead);
    cache.reconcile(key);
    assert.ok(works.get("m2", key) !== undefined, "m2 was sent its Work ahead (the agent applies it)");
    // The first write's watch event arrives; the second's is a moment behind it.
    fakes.of<ResourceBinding>("resourcebindings").put(bindingOn(["m1"], "1"));
    cache.reconcile(key);
    const gone = works.get("m2", key) === undefined;
    const intent = gone ? judge("m2") : undefined;
    assert.equal(intent, undefined, `m2 is told to delete what it was just sent (${JSON.stringify(intent)}), then to create it again when the second write's event lands: the informer's older binding is no placement change the user made`);
  });

  it("a write that fails after its ahead entry expired still takes its Works out of the store (the work cache is told)", async () => {
    let now = 0;
    const { caches, works, key, cache } = setup(() => now);
    const heard: string[] = [];
    caches.bindingsAhead.onChange((k) => heard.push(k));
    let fail: (err: Error) => void = () => undefined;
    const rest = { apply: () => new Promise((_, reject) => (fail = reject)) } as unknown as KubeRest;
    const write = writeBinding(rest, "/x", bindingOn(["m1", "m2"], ""), "fm", { bindings: caches.bindingsAhead, key, seen: () => caches.bindingOf(parseWorkKey(key)) }).catch(() => undefined);
    cache.reconcile(key);
    heard.length = 0;
    now = MAX_AHEAD_MS + 1;
    caches.bindingsAhead.get(key); // the status controller's lookup, on an agent's report
    fail(new Error("POST /x: timed out"));
    await write;
    assert.ok(heard.includes(key), "the expiry and the failed write are heard of, so the Works render again from the informer (else they stay in the store, sent to every agent that connects, for a binding that was never written)");
    assert.ok(works.get("m1", key) !== undefined);
  });
});

describe("review 42: a template deleted while its new binding is ahead of the informer", () => {
  it("its Works' removal, kept while the binding was ahead, is judged again once the informer shows the binding: the members delete them (bench:latency missed such a delete for 30 s)", async () => {
    const fakes = fakeInformers();
    const caches = new Caches(new KubeConfig(), {} as KubeRest, silentLogger(), fakes.make);
    for (const c of ["m1", "m2"]) fakes.of<Cluster>("clusters").put(cluster(c));
    const works = new WorkStore();
    let gone = false;
    const fixed = fakeTemplates([template]);
    const templates = { ...fixed, get: (ref: Parameters<TemplateInformers["get"]>[0]) => (gone ? undefined : fixed.get(ref)) } as TemplateInformers;
    const cache = new WorkCache({ caches, templates, works, log: silentLogger() });
    const key = templateKey(template);
    // The apiserver answers every write of the new binding with resourceVersion 1 (the second is a no-op).
    const rest = { apply: async () => ({ metadata: { resourceVersion: "1" } }) } as unknown as KubeRest;
    const ahead = { bindings: caches.bindingsAhead, key, seen: () => caches.bindingOf(parseWorkKey(key)) };
    // As startHub wires the hub's judge.
    const rechecked: string[] = [];
    const kept = new KeptAbsences((c, k) => rechecked.push(`${c} ${k}`)).follow({ bindingsAhead: caches.bindingsAhead, bindings: [], onTemplateChanged: () => undefined, decides: () => false });
    const judge = (c: string) =>
      caches.bindingsAhead.get(key) !== undefined ? kept.keep(c, key) : deletionIntent({ name: c, leaving: false, readyForMs: Number.POSITIVE_INFINITY }, caches.bindingOf(parseWorkKey(key)), { known: true, template: templates.get(parseWorkKey(key)) }, 10_000);
    // Created: the Works go out ahead of the binding's watch event.
    await writeBinding(rest, "/x", bindingOn(["m1", "m2"], ""), "fm", ahead);
    cache.reconcile(key);
    assert.ok(works.get("m1", key) !== undefined);
    // Updated before that event: the informer still holds no binding, so the write goes ahead again.
    await writeBinding(rest, "/x", bindingOn(["m1", "m2"], ""), "fm", ahead);
    cache.reconcile(key);
    // Deleted, still before the event: the Works leave the store; the hub keeps their removal.
    gone = true;
    cache.reconcile(key);
    assert.equal(works.get("m1", key), undefined);
    assert.equal(judge("m1"), undefined, "kept while the binding is ahead");
    assert.equal(judge("m2"), undefined);
    // The binding's watch event: the kept removals are judged again, now on the informer's binding.
    fakes.of<ResourceBinding>("resourcebindings").put(bindingOn(["m1", "m2"], "1"));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(rechecked.sort(), [`m1 ${key}`, `m2 ${key}`], "each cluster's kept removal is judged again (before: never, and the members kept the objects)");
    assert.deepEqual(judge("m1"), { reason: "TemplateDeleted", preserve: false });
  });
});
