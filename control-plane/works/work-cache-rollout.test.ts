// The work cache under a progressive rollout (issue 23): each cluster's Work is rendered at the
// revision the binding's status.rollout tells it, from the stored copy with the template's
// replicas; a revision not stored here leaves the Works as they are, and nothing is deleted.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import { ROLLOUT_OF_LABEL } from "../../shared/api/resources.ts";
import type { Cluster, ControllerRevision, KubeObject, ResourceBinding, RolloutState } from "../../shared/api/types.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import { silentLogger } from "../../shared/logger.ts";
import { templateKey } from "../../shared/work-key.ts";
import { Caches } from "../caches/caches.ts";
import { fakeInformers } from "../caches/fake-informer.fixtures.ts";
import { fakeTemplates } from "../detector/template-informers.fixtures.ts";
import { RevisionStore, rolloutOfLabel } from "./revision-store.ts";
import { revisionOf } from "./rollout-revisions.ts";
import { WorkCache } from "./work-cache.ts";
import { WorkStore } from "./work-store.ts";
import type { InterpreterRegistry } from "../../shared/interpreter/registry.ts";
import { deployment as deploymentInterpreter } from "../../shared/interpreter/native/apps.ts";

const deployment = (image: string, replicas: number, generation: number): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "default", uid: "u1", generation },
  spec: { replicas, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image }] } } },
});
const revision = (t: KubeObject) => {
  const r = revisionOf(t);
  if (!("revision" in r)) throw new Error(r.error);
  return r;
};
const cluster = (name: string): Cluster => ({ apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name }, spec: {} });
const since = "2026-11-24T00:00:00.000Z";

function setup(template: KubeObject, interpreters?: InterpreterRegistry) {
  const fakes = fakeInformers();
  const rest = {} as KubeRest;
  const log = silentLogger();
  const caches = new Caches(new KubeConfig(), rest, log, fakes.make);
  for (const c of ["m1", "m2", "m3"]) fakes.of<Cluster>("clusters").put(cluster(c));
  const revisions = new RevisionStore({ rest, namespace: "flotilla-system", informer: caches.controllerRevisions });
  const works = new WorkStore();
  const templates = [structuredClone(template)];
  const cache = new WorkCache({ caches, templates: fakeTemplates(templates), works, log, revisions, ...(interpreters === undefined ? {} : { interpreters }) });
  const key = templateKey(template);
  const store = (t: KubeObject, n: number): ControllerRevision => {
    const r = revision(t);
    const cr: ControllerRevision = {
      apiVersion: "apps/v1",
      kind: "ControllerRevision",
      metadata: {
        name: `web-deployment-${r.revision.slice(0, 10)}`,
        namespace: "default",
        labels: { [ROLLOUT_OF_LABEL]: rolloutOfLabel(key) },
        annotations: { "flotilla.dev/template-key": key, "flotilla.dev/revision": r.revision, "flotilla.dev/template-generation": String(t.metadata.generation) },
      },
      data: r.cleaned,
      revision: n,
    };
    fakes.of<ControllerRevision>("controllerrevisions").put(cr);
    return cr;
  };
  const bind = (state: RolloutState | undefined, withRollout = true, clusters = ["m1", "m2"]) =>
    fakes.of<ResourceBinding>("resourcebindings").put({
      apiVersion: "flotilla.dev/v1alpha1",
      kind: "ResourceBinding",
      metadata: { name: "web-deployment", namespace: "default", resourceVersion: String(Math.random()) },
      spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "web", uid: "u1" }, clusters: clusters.map((name) => ({ name })), ...(withRollout ? { rollout: {} } : {}) },
      ...(state === undefined ? {} : { status: { rollout: state } }),
    });
  // The fake's template object is changed in place (it keeps the object it was given).
  const setTemplate = (t: KubeObject) => Object.assign(templates[0] as KubeObject, structuredClone(t));
  const image = (c: string) => {
    const w = works.get(c, key);
    if (w === undefined) return undefined;
    const m = JSON.parse(w.manifests[0]?.toString() ?? "{}") as { spec: { replicas: number; template: { spec: { containers: { image: string }[] } } } };
    return { image: m.spec.template.spec.containers[0]?.image, replicas: m.spec.replicas, revision: w.revision, generation: w.templateGeneration };
  };
  return { cache, works, key, store, bind, setTemplate, image, fakes };
}

describe("work cache under a progressive rollout", () => {
  const v1 = deployment("nginx:1", 2, 1);
  const v2 = deployment("nginx:2", 2, 2);
  const r1 = revision(v1).revision;
  const r2 = revision(v2).revision;
  const state = (m1: string, m2: string): RolloutState => ({
    revision: r2,
    stableRevision: r1,
    phase: "Progressing",
    clusters: [
      { name: "m1", revision: m1, phase: "Updating", since },
      { name: "m2", revision: m2, phase: "Waiting", since },
    ],
  });

  it("renders each cluster at the revision it is told: the template's, or the stored copy with its generation", () => {
    const s = setup(v2);
    s.store(v1, 1);
    s.bind(state(r2, r1));
    s.cache.reconcile(s.key);
    assert.deepEqual(s.image("m1"), { image: "nginx:2", replicas: 2, revision: r2, generation: 2 });
    assert.deepEqual(s.image("m2"), { image: "nginx:1", replicas: 2, revision: r1, generation: 1 });
  });

  it("scaling is no rollout: a cluster held at an earlier revision gets the template's replicas", () => {
    const s = setup(deployment("nginx:2", 5, 3));
    s.store(v1, 1);
    s.bind(state(r2, r1));
    s.cache.reconcile(s.key);
    assert.deepEqual(s.image("m1"), { image: "nginx:2", replicas: 5, revision: r2, generation: 3 });
    assert.deepEqual(s.image("m2"), { image: "nginx:1", replicas: 5, revision: r1, generation: 1 });
  });

  it("a revision not stored here leaves that cluster's Work as it is, and deletes nothing", () => {
    const s = setup(v1);
    s.bind({ ...state(r1, r1), revision: r1 });
    s.cache.reconcile(s.key);
    assert.equal(s.image("m2")?.image, "nginx:1");
    // The template changes; m2 is still told r1, which this replica has not stored (its informer lags).
    s.setTemplate(v2);
    const heard: string[] = [];
    s.works.subscribeAll((c, k) => heard.push(`${c} ${k}`));
    s.bind(state(r2, r1));
    s.cache.reconcile(s.key);
    assert.equal(s.image("m1")?.image, "nginx:2");
    assert.equal(s.image("m2")?.image, "nginx:1", "m2 keeps the Work it runs");
    assert.ok(!heard.includes(`m2 ${s.key}`), "nothing told about m2: no change, no deletion");
    // Once the revision arrives, m2 is rendered from it (the same content: nothing new is sent).
    s.store(v1, 1);
    s.cache.reconcile(s.key);
    assert.deepEqual(s.image("m2"), { image: "nginx:1", replicas: 2, revision: r1, generation: 1 });
  });

  it("a cluster that joins mid-rollout, not in the state yet, runs the stable revision, never the one rolling out", () => {
    const s = setup(v2);
    s.store(v1, 1);
    s.bind(state(r2, r1), true, ["m1", "m2", "m3"]);
    s.cache.reconcile(s.key);
    assert.equal(s.image("m3")?.image, "nginx:1");
    // Once the rollout succeeded, a cluster that joins runs its revision.
    s.bind({ ...state(r2, r2), phase: "Succeeded" }, true, ["m1", "m2", "m3"]);
    s.cache.reconcile(s.key);
    assert.equal(s.image("m3")?.image, "nginx:2");
  });

  it("a template whose revision cannot be computed (its ReviseReplica fails) moves no cluster off the revision it was told", () => {
    // A customization whose ReviseReplica fails for 0 replicas: the revision (replicas left out) cannot be computed.
    const failing = { for: () => ({ ...deploymentInterpreter, reviseReplica: (o: KubeObject, n: number) => (n === 0 ? assert.fail("ReviseReplica failed") : (deploymentInterpreter.reviseReplica?.(o, n) as KubeObject)) }) } as unknown as InterpreterRegistry;
    const s = setup(v2, failing);
    s.store(v1, 1);
    s.bind({ ...state(r1, r1), revision: r1, phase: "Succeeded" });
    s.cache.reconcile(s.key);
    assert.equal(s.image("m1")?.image, "nginx:1", "m1 keeps the revision it was told");
    assert.equal(s.image("m2")?.image, "nginx:1", "m2 keeps the revision it was told");
  });

  it("a policy without spec.rollout: every cluster runs the template, whatever a state says", () => {
    const s = setup(v2);
    s.store(v1, 1);
    s.bind(state(r2, r1), false);
    s.cache.reconcile(s.key);
    assert.equal(s.image("m1")?.image, "nginx:2");
    assert.equal(s.image("m2")?.image, "nginx:2");
    assert.equal(s.image("m2")?.revision, undefined);
  });

  it("a binding status write that changes a told revision re-renders; another status write does not", () => {
    const s = setup(v2);
    s.store(v1, 1);
    s.bind(state(r2, r1));
    s.cache.reconcile(s.key);
    let enqueued = 0;
    s.cache.controller.enqueue = () => void enqueued++;
    s.bind(state(r2, r2));
    assert.equal(enqueued, 1, "a told revision changed");
    s.cache.reconcile(s.key);
    // The agents' reports: another status write, the same told revisions.
    const b = s.fakes.of<ResourceBinding>("resourcebindings").get("web-deployment", "default") as ResourceBinding;
    s.fakes.of<ResourceBinding>("resourcebindings").put({ ...b, metadata: { ...b.metadata, resourceVersion: "later" }, status: { ...b.status, aggregatedStatus: [{ clusterName: "m1", applied: true }] } });
    assert.equal(enqueued, 1, "a report changes nothing here");
  });
});
