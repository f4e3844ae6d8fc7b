// The leader's rollout controller over stand-in informers and a recording apiserver: what it
// writes, in which order, and what it leaves alone (issue 23).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import type { Cluster, ControllerRevision, KubeObject, ResourceBinding, RolloutState } from "../../shared/api/types.ts";
import { InterpreterRegistry } from "../../shared/interpreter/registry.ts";
import { KubeError, type KubeRest } from "../../shared/kube-rest.ts";
import { silentLogger } from "../../shared/logger.ts";
import { templateKey } from "../../shared/work-key.ts";
import { Caches } from "../caches/caches.ts";
import { fakeInformers } from "../caches/fake-informer.fixtures.ts";
import { fakeTemplates } from "../detector/template-informers.fixtures.ts";
import { RevisionStore } from "../works/revision-store.ts";
import { revisionOf } from "../works/rollout-revisions.ts";
import { WorkStore } from "../works/work-store.ts";
import { RolloutController } from "./rollout-controller.ts";

const deployment = (image: string): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "default", uid: "u1", generation: 1 },
  spec: { replicas: 1, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image }] } } },
});
const revision = (t: KubeObject) => {
  const r = revisionOf(t);
  if (!("revision" in r)) throw new Error(r.error);
  return r.revision;
};
const cluster = (name: string): Cluster => ({ apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name }, spec: {} });

interface Call {
  method: string;
  path: string;
  body: unknown;
}

function setup(image: string, opts: { conflict?: boolean } = {}) {
  const fakes = fakeInformers();
  const calls: Call[] = [];
  const rest = {
    request: async (method: string, path: string, init: { body?: unknown } = {}) => {
      calls.push({ method, path, body: init.body });
      if (method === "PATCH" && opts.conflict === true) throw new KubeError(409, "Conflict", "the object has been modified");
      if (method === "POST") {
        const cr = structuredClone(init.body) as ControllerRevision;
        fakes.of<ControllerRevision>("controllerrevisions").put(cr);
        return cr;
      }
      return {};
    },
  } as unknown as KubeRest;
  const log = silentLogger();
  const caches = new Caches(new KubeConfig(), rest, log, fakes.make);
  for (const c of ["m1", "m2"]) fakes.of<Cluster>("clusters").put(cluster(c));
  const revisions = new RevisionStore({ rest, namespace: "flotilla-system", informer: caches.controllerRevisions });
  const template = deployment(image);
  const ctl = new RolloutController({ caches, templates: fakeTemplates([template]), works: new WorkStore(), revisions, rest, interpreters: new InterpreterRegistry(), log, now: () => Date.parse("2026-11-24T12:00:00Z") });
  const key = templateKey(template);
  const bind = (state: RolloutState | undefined, rollout: object | null = { groups: [{ name: "canary", clusterNames: ["m1"] }] }) =>
    fakes.of<ResourceBinding>("resourcebindings").put({
      apiVersion: "flotilla.dev/v1alpha1",
      kind: "ResourceBinding",
      metadata: { name: "web-deployment", namespace: "default", resourceVersion: "7" },
      spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "web", uid: "u1" }, clusters: [{ name: "m1" }, { name: "m2" }], ...(rollout === null ? {} : { rollout }) },
      ...(state === undefined ? {} : { status: { rollout: state } }),
    });
  const setImage = (i: string) => (((template.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0] as { image: string }).image = i);
  const patches = () => calls.filter((c) => c.method === "PATCH").map((c) => c.body as { metadata: { resourceVersion: string }; status: { rollout: RolloutState | null } });
  return { ctl, key, bind, calls, patches, setImage, template, fakes };
}

describe("rollout controller", () => {
  const r1 = revision(deployment("nginx:1"));
  const r2 = revision(deployment("nginx:2"));

  it("first sight: stores the revision, then writes the state, every cluster Succeeded at it, under the binding's resourceVersion", async () => {
    const s = setup("nginx:1");
    s.bind(undefined);
    await s.ctl.controller.process(s.key);
    assert.deepEqual(s.calls.map((c) => `${c.method} ${c.path}`), [
      "POST /apis/apps/v1/namespaces/default/controllerrevisions",
      "PATCH /apis/flotilla.dev/v1alpha1/namespaces/default/resourcebindings/web-deployment/status",
    ]);
    const cr = s.calls[0]?.body as ControllerRevision;
    assert.equal(cr.metadata.annotations?.["flotilla.dev/revision"], r1);
    assert.equal(cr.metadata.ownerReferences?.[0]?.uid, "u1");
    assert.equal((cr.data?.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0]?.image, "nginx:1");
    const [patch] = s.patches();
    assert.equal(patch?.metadata.resourceVersion, "7");
    assert.equal(patch?.status.rollout?.phase, "Succeeded");
    assert.deepEqual(patch?.status.rollout?.clusters.map((c) => [c.name, c.revision]), [["m1", r1], ["m2", r1]]);
  });

  it("a new revision: stored before the state names it; the canary is told it, the rest keeps the stable one", async () => {
    const s = setup("nginx:1");
    s.bind(undefined);
    await s.ctl.controller.process(s.key);
    s.bind(s.patches()[0]?.status.rollout ?? undefined);
    s.setImage("nginx:2");
    s.calls.length = 0;
    await s.ctl.controller.process(s.key);
    assert.deepEqual(s.calls.map((c) => c.method), ["POST", "PATCH"]);
    const state = s.patches()[0]?.status.rollout;
    assert.equal(state?.phase, "Progressing");
    assert.equal(state?.stableRevision, r1);
    assert.deepEqual(state?.clusters.map((c) => [c.name, c.revision, c.phase]), [["m1", r2, "Updating"], ["m2", r1, "Waiting"]]);
  });

  it("nothing changed: no write", async () => {
    const s = setup("nginx:1");
    s.bind(undefined);
    await s.ctl.controller.process(s.key);
    s.bind(s.patches()[0]?.status.rollout ?? undefined);
    s.calls.length = 0;
    await s.ctl.controller.process(s.key);
    assert.deepEqual(s.calls, []);
  });

  it("the stable revision not stored (deleted by hand): the change goes out at once, and the state says why", async () => {
    const s = setup("nginx:2");
    const since = "2026-11-24T11:00:00.000Z";
    s.bind({ revision: r1, stableRevision: r1, phase: "Succeeded", clusters: [{ name: "m1", revision: r1, phase: "Succeeded", since }, { name: "m2", revision: r1, phase: "Succeeded", since }] });
    await s.ctl.controller.process(s.key);
    const state = s.patches()[0]?.status.rollout;
    assert.deepEqual(state?.clusters.map((c) => c.revision), [r2, r2]);
    assert.match(state?.message ?? "", new RegExp(`revision ${r1} is not stored: the change went out to every cluster at once`));
  });

  it("a conflict (a user's command written meanwhile): looked at again soon, counted", async () => {
    const s = setup("nginx:1", { conflict: true });
    s.bind(undefined);
    const later: number[] = [];
    s.ctl.controller.queue.addAfter = (_key: string, ms: number) => void later.push(ms);
    await s.ctl.controller.process(s.key);
    assert.equal(s.ctl.counts.conflicts, 1);
    assert.equal(s.ctl.counts.writes, 0);
    assert.deepEqual(later, [200]);
  });

  it("the policy drops spec.rollout: the state is removed, and no revision is written", async () => {
    const s = setup("nginx:1");
    s.bind({ revision: r1, stableRevision: r1, phase: "Succeeded", clusters: [] }, null);
    await s.ctl.controller.process(s.key);
    assert.deepEqual(s.calls.map((c) => c.method), ["PATCH"]);
    assert.equal(s.patches()[0]?.status.rollout, null);
  });
});
