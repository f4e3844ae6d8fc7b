// The absences the hub's judge kept are judged again when their key's binding or template changes.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import type { Cluster, KubeObject, ResourceBinding } from "../../shared/api/types.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import { silentLogger } from "../../shared/logger.ts";
import { parseWorkKey, templateKey } from "../../shared/work-key.ts";
import { Caches } from "../caches/caches.ts";
import { fakeInformers } from "../caches/fake-informer.fixtures.ts";
import { fakeTemplates } from "../detector/template-informers.fixtures.ts";
import type { TemplateInformers } from "../detector/template-informers.ts";
import { WorkCache } from "../works/work-cache.ts";
import { WorkStore } from "../works/work-store.ts";
import { deletionIntent, templateDeletionDecided } from "./deletion-intent.ts";
import { KeptAbsences, type KeyChanges } from "./kept-absences.ts";

const template: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "web", namespace: "default", uid: "u1" }, data: { v: "1" } };
const KEY = templateKey(template);
const bindingOn = (clusters: string[], resourceVersion = "1"): ResourceBinding => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceBinding",
  metadata: { name: "web-configmap", namespace: "default", resourceVersion },
  spec: { resource: { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "web", uid: "u1" }, clusters: clusters.map((name) => ({ name })) },
});
const tick = () => new Promise((r) => setImmediate(r));

/** KeyChanges whose events the test fires by hand; `decides` answers as the test sets it. */
function handChanges() {
  const ended: ((key: string) => void)[] = [];
  const templates: ((key: string) => void)[] = [];
  const handlers: Parameters<KeyChanges["bindings"][number]["on"]>[0][] = [];
  const state = { decides: false };
  const changes: KeyChanges = {
    bindingsAhead: { onEnd: (l) => void ended.push(l) },
    bindings: [{ on: (h) => void handlers.push(h) }],
    onTemplateChanged: (l) => void templates.push(l),
    decides: () => state.decides,
  };
  return {
    changes,
    state,
    aheadEnded: (key: string) => ended.forEach((l) => l(key)),
    template: (key: string) => templates.forEach((l) => l(key)),
    added: (b: ResourceBinding) => handlers.forEach((h) => h.add(b)),
    updated: (b: ResourceBinding) => handlers.forEach((h) => h.update(b)),
    deleted: (b: ResourceBinding) => handlers.forEach((h) => h.delete(b)),
  };
}

describe("KeptAbsences", () => {
  const OTHER = "core/v1/ConfigMap/default/other";
  const cases: { name: string; decides: boolean; fire: (h: ReturnType<typeof handChanges>) => void; rejudged: boolean }[] = [
    { name: "its template changed, and the key's state decides", decides: true, fire: (h) => h.template(KEY), rejudged: true },
    { name: "its binding deleted, and the key's state decides", decides: true, fire: (h) => h.deleted(bindingOn(["m1"])), rejudged: true },
    { name: "its binding updated (a deletionTimestamp), and the key's state decides", decides: true, fire: (h) => h.updated({ ...bindingOn(["m1"], "2"), metadata: { ...bindingOn(["m1"]).metadata, deletionTimestamp: "2026-12-01T00:00:00Z" } }), rejudged: true },
    { name: "its template changed, and the key's state does not decide (a status write while the template lives)", decides: false, fire: (h) => h.template(KEY), rejudged: false },
    { name: "its binding made again (the key's state does not decide: a placement without the old one's history)", decides: false, fire: (h) => h.added(bindingOn([])), rejudged: false },
    { name: "its binding's write ahead of the informer ended (the leader's write shows)", decides: false, fire: (h) => h.aheadEnded(KEY), rejudged: true },
    { name: "another key's template changed", decides: true, fire: (h) => h.template(OTHER), rejudged: false },
  ];
  for (const c of cases) {
    it(`${c.rejudged ? "judges the kept absences again" : "judges nothing again"} when ${c.name}`, () => {
      const h = handChanges();
      h.state.decides = c.decides;
      const rechecked: string[] = [];
      const kept = new KeptAbsences((cluster, key) => rechecked.push(`${cluster} ${key}`)).follow(h.changes);
      kept.keep("m1", KEY);
      kept.keep("m2", KEY);
      kept.keep("m1", KEY);
      c.fire(h);
      assert.deepEqual(rechecked.sort(), c.rejudged ? [`m1 ${KEY}`, `m2 ${KEY}`] : []);
      assert.equal(kept.size, c.rejudged ? 0 : 1, "a rejudged absence is forgotten until the judge keeps it again; one not rejudged stays");
    });
  }

  it("asks whether the key's state decides only for keys with kept absences", () => {
    const h = handChanges();
    let asked = 0;
    const changes = { ...h.changes, decides: () => (asked++, true) };
    const rechecked: string[] = [];
    new KeptAbsences((cluster, key) => rechecked.push(`${cluster} ${key}`)).follow(changes);
    h.template(KEY);
    h.added(bindingOn(["m1"]));
    assert.deepEqual(rechecked, []);
    assert.equal(asked, 0, "a template's status writes cost nothing where nothing was kept");
  });

  it("forgets a cluster's kept absences when its session ends, and only that cluster's", () => {
    const h = handChanges();
    h.state.decides = true;
    const rechecked: string[] = [];
    const kept = new KeptAbsences((cluster, key) => rechecked.push(`${cluster} ${key}`)).follow(h.changes);
    kept.keep("m1", KEY);
    kept.keep("m2", KEY);
    kept.keep("m1", OTHER);
    kept.forgetCluster("m1");
    assert.equal(kept.size, 1, "OTHER held only m1's absence");
    h.template(KEY);
    h.template(OTHER);
    assert.deepEqual(rechecked, [`m2 ${KEY}`]);
  });
});

// The work cache and the judge as the hub runs them (hub/index.ts): the store's removals are judged,
// a kept one is remembered, and a recheck judges it again.
function hubOverWorkCache() {
  const fakes = fakeInformers();
  const caches = new Caches(new KubeConfig(), {} as KubeRest, silentLogger(), fakes.make);
  for (const c of ["m1", "m2"]) fakes.of<Cluster>("clusters").put({ apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name: c }, spec: {} });
  const works = new WorkStore();
  let templateGone = false;
  const fixed = fakeTemplates([template]);
  const templates = { ...fixed, get: (ref: Parameters<TemplateInformers["get"]>[0]) => (templateGone ? undefined : fixed.get(ref)) } as TemplateInformers;
  const cache = new WorkCache({ caches, templates, works, log: silentLogger() });
  const templateListeners: ((key: string) => void)[] = [];
  const templateWritten = () => templateListeners.forEach((l) => l(KEY));
  /** What each cluster's agent was told to delete, and why. */
  const told: string[] = [];
  const judge = (cluster: string, key: string) => {
    if (works.get(cluster, key) !== undefined) return;
    const intent = deletionIntent({ name: cluster, leaving: false, readyForMs: Number.POSITIVE_INFINITY }, caches.bindingOf(parseWorkKey(key)), { known: true, template: templates.get(parseWorkKey(key)) }, 10_000);
    if (intent === undefined) kept.keep(cluster, key);
    else told.push(`${cluster} ${intent.reason}`);
  };
  const kept = new KeptAbsences(judge).follow({
    bindingsAhead: caches.bindingsAhead,
    bindings: [caches.bindings, caches.clusterBindings],
    onTemplateChanged: (l) => void templateListeners.push(l),
    decides: (key) => templateDeletionDecided(caches.bindingOf(parseWorkKey(key)), { known: true, template: templates.get(parseWorkKey(key)) }),
  });
  for (const c of ["m1", "m2"]) works.subscribe(c, (key) => judge(c, key));
  const bindings = fakes.of<ResourceBinding>("resourcebindings");
  const deleteTemplate = () => {
    templateGone = true;
    for (const l of templateListeners) l(KEY);
    cache.reconcile(KEY);
  };
  /** The binding as the informer shows it next (added or updated), rendered by the work cache. */
  const shown = (b: ResourceBinding) => {
    bindings.put(b);
    cache.reconcile(KEY);
  };
  /** The binding deleted by hand (gone from the informer), and the work cache's answer. */
  const deletedByHand = (b: ResourceBinding) => {
    bindings.remove(b);
    cache.reconcile(KEY);
  };
  return { works, told, kept, deleteTemplate, templateWritten, shown, deletedByHand };
}

describe("a binding deleted by hand while its template lives", () => {
  it("keeps the members' objects, then removes them once the template is deleted before the binding is made again", async () => {
    const { works, told, kept, deleteTemplate, shown, deletedByHand } = hubOverWorkCache();
    shown(bindingOn(["m1", "m2"]));
    assert.ok(works.get("m1", KEY) !== undefined && works.get("m2", KEY) !== undefined);
    deletedByHand(bindingOn(["m1", "m2"]));
    await tick();
    assert.deepEqual(told, [], "a missing binding is no intent: nothing is deleted");
    assert.equal(kept.size, 1);
    deleteTemplate();
    assert.deepEqual(told.sort(), ["m1 TemplateDeleted", "m2 TemplateDeleted"], "the template's deletion is judged for the removals kept (before: nothing marked them, and the objects stayed)");
  });

  it("…also while the binding, deleted by hand, is held by a finalizer (being deleted)", () => {
    const { works, told, deleteTemplate, shown } = hubOverWorkCache();
    shown(bindingOn(["m1", "m2"]));
    shown({ ...bindingOn(["m1", "m2"], "2"), metadata: { ...bindingOn([]).metadata, resourceVersion: "2", deletionTimestamp: "2026-12-01T00:00:00Z", finalizers: ["someone.example/hold"] } });
    assert.equal(works.get("m1", KEY), undefined);
    assert.deepEqual(told, [], "a binding being deleted while its template lives is no intent");
    deleteTemplate();
    assert.deepEqual(told.sort(), ["m1 TemplateDeleted", "m2 TemplateDeleted"]);
  });

  it("the binding made again deletes nothing, on the clusters it names or not, nor with no cluster at all (a held policy, an exceeded quota), nor on a template status write after it", () => {
    const { works, told, templateWritten, shown, deletedByHand } = hubOverWorkCache();
    shown(bindingOn(["m1", "m2"]));
    deletedByHand(bindingOn(["m1", "m2"]));
    shown(bindingOn(["m1", "m2"], "2"));
    assert.deepEqual(told, [], "made again where it was: nothing deleted");
    assert.ok(works.get("m1", KEY) !== undefined && works.get("m2", KEY) !== undefined);
    deletedByHand(bindingOn(["m1", "m2"], "2"));
    shown(bindingOn(["m1"], "3"));
    templateWritten();
    deletedByHand(bindingOn(["m1"], "3"));
    shown(bindingOn([], "4"));
    templateWritten();
    assert.deepEqual(told, [], "a binding made again without the old one's history decides no removal here: the work cache and the agent's next Hello judge its placement, as before");
  });

  it("a template status write while the binding is missing deletes nothing", () => {
    const { told, kept, templateWritten, shown, deletedByHand } = hubOverWorkCache();
    shown(bindingOn(["m1", "m2"]));
    deletedByHand(bindingOn(["m1", "m2"]));
    templateWritten();
    assert.deepEqual(told, []);
    assert.equal(kept.size, 1, "still kept");
  });
});
