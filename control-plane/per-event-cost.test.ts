// What one event costs the control plane, counted through the real handlers with stand-in
// informers: reconciles enqueued per controller, and cache objects read. T templates on K
// clusters under a Duplicated policy that selects every cluster, and one template under a policy
// that names one cluster. The counts must not grow with T or K beyond what the event touches.
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { after, before, describe, it } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import { API_VERSION, type Cluster, type KubeObject, LABELS, type OverridePolicy, type PropagationPolicy, type ResourceBinding } from "../shared/api/types.ts";
import type { Controller } from "../shared/controller.ts";
import type { KubeRest } from "../shared/kube-rest.ts";
import { silentLogger } from "../shared/logger.ts";
import { templateKey } from "../shared/work-key.ts";
import { Caches } from "./caches/caches.ts";
import type { ControlPlaneContext, ControlPlaneEvents } from "./context.ts";
import { startDetector } from "./detector/index.ts";
import { fakeInformers } from "./caches/fake-informer.fixtures.ts";
import { fakeTemplates } from "./detector/template-informers.fixtures.ts";
import type { Hub } from "./hub/hub.ts";
import { ScheduleOutcomes } from "./scheduling/schedule-outcomes.ts";
import { EventRecorder } from "./status/event-recorder.ts";
import { startStatus } from "./status/index.ts";
import { StatusStore } from "./status/status-store.ts";
import { CLUSTER_CHANGE_GATHER_MS } from "./status/status-settle.ts";
import { startWorks } from "./works/index.ts";
import { WorkStore } from "./works/work-store.ts";

const NOW = "2026-11-23T10:00:00Z";

const clusterOf = (name: string, ready: boolean): Cluster => ({
  apiVersion: API_VERSION,
  kind: "Cluster",
  metadata: { name, resourceVersion: ready ? "1" : "2" },
  spec: {},
  status: { conditions: [{ type: "Ready", status: ready ? "True" : "False", reason: "", message: "", lastTransitionTime: NOW }] },
});
const policyOf = (name: string, clusterNames?: string[]): PropagationPolicy => ({
  apiVersion: API_VERSION,
  kind: "ClusterPropagationPolicy",
  metadata: { name },
  spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", ...(clusterNames ? { name: "solo" } : {}) }], ...(clusterNames ? { placement: { clusterAffinity: { clusterNames } } } : {}) },
});
const templateOf = (name: string): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, namespace: "default", uid: `uid-${name}`, generation: 1, resourceVersion: "1" },
  spec: { replicas: 1, template: { spec: { containers: [{ name: "c", image: "nginx" }] } } },
});
const bindingOf = (t: KubeObject, policy: string, clusters: string[]): ResourceBinding => ({
  apiVersion: API_VERSION,
  kind: "ResourceBinding",
  metadata: { name: `${t.metadata.name}-deployment`, namespace: "default", generation: 1, resourceVersion: "1", labels: { [LABELS.policyName]: policy } },
  spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: t.metadata.name ?? "", uid: t.metadata.uid ?? "" }, clusters: clusters.map((name) => ({ name })) },
  status: { aggregatedStatus: clusters.map((clusterName) => ({ clusterName, applied: true, health: "Healthy" as const })) },
});

/** Distinct keys a controller was asked to reconcile since the last reset, and of those at once (not in a coalescing window). */
function countKeys(c: Controller): { keys: Set<string>; now: Set<string> } {
  const counted = { keys: new Set<string>(), now: new Set<string>() };
  const { add, addAfter } = { add: c.queue.add.bind(c.queue), addAfter: c.queue.addAfter.bind(c.queue) };
  c.queue.add = (k) => (counted.keys.add(k), counted.now.add(k), add(k));
  c.queue.addAfter = (k, ms) => (counted.keys.add(k), ms <= 0 && counted.now.add(k), addAfter(k, ms));
  return counted;
}

/** Two fleets: what one event costs must not grow from the first to the second beyond what it touches. */
for (const [T, K] of [
  [100, 40],
  [300, 80],
] as const) describe(`per-event cost (T=${T} templates on K=${K} clusters)`, () => {
  const fakes = fakeInformers();
  const log = silentLogger();
  const applied: { path: string; body: Partial<ResourceBinding> }[] = [];
  const rest = { apply: async (path: string, body: Partial<ResourceBinding>) => (applied.push({ path, body }), body), mergePatch: async () => ({}), request: async () => ({}), delete: async () => ({}) } as unknown as KubeRest;
  const caches = new Caches(new KubeConfig(), rest, log, fakes.make);
  const names = Array.from({ length: K }, (_, i) => `m${i}`);
  const templates = [...Array.from({ length: T }, (_, i) => templateOf(`t${i}`)), templateOf("solo")];
  const events = new EventEmitter<ControlPlaneEvents>();
  const ctx = {
    opts: { gracefulEvictionPeriodMs: 60_000, requireAcceptance: false },
    log,
    rest,
    caches,
    templates: fakeTemplates(templates),
    works: new WorkStore(),
    statuses: new StatusStore(),
    recorder: new EventRecorder({ rest, log }),
    outcomes: new ScheduleOutcomes(),
    identity: "test",
    isLeader: () => false,
    events,
  } as unknown as ControlPlaneContext;
  const detector = startDetector(ctx);
  const works = startWorks(ctx);
  const status = startStatus(ctx, { hub: { session: () => undefined } as unknown as Hub, heardHere: () => true });
  const kindsCtl = detector.controllers?.[0] as Controller;
  const controllers = { binding: detector.leaderControllers?.[0] as Controller, workCache: works.controllers?.[0] as Controller, status: status.controllers?.[0] as Controller };
  const counts = Object.fromEntries(Object.entries(controllers).map(([name, c]) => [name, countKeys(c)]));
  const clusters = fakes.of<Cluster>("clusters");
  const bindings = fakes.of<ResourceBinding>("resourcebindings");
  const bindingsOfAll = templates.slice(0, T).map((t) => bindingOf(t, "all", names));

  /** Runs the kinds controller (the old code re-enqueued every template from it), then reads the counts. */
  const measure = async (event: () => void): Promise<Record<string, number>> => {
    for (const c of Object.values(counts)) {
      c.keys.clear();
      c.now.clear();
    }
    clusters.read = 0;
    bindings.read = 0;
    event();
    while (kindsCtl.queue.length > 0) {
      const k = (await kindsCtl.queue.get()) as string;
      await kindsCtl.process(k);
      kindsCtl.queue.done(k);
    }
    return { ...Object.fromEntries(Object.entries(counts).map(([n, c]) => [n, c.keys.size])), statusAtOnce: counts.status?.now.size ?? 0, bindingsRead: bindings.read, clustersRead: clusters.read };
  };

  before(async () => {
    for (const n of names) clusters.put(clusterOf(n, true));
    fakes.of<PropagationPolicy>("clusterpropagationpolicies").put(policyOf("all"));
    fakes.of<PropagationPolicy>("clusterpropagationpolicies").put(policyOf("one", ["m1"]));
    for (const b of bindingsOfAll) bindings.put(b);
    bindings.put(bindingOf(templates[T] as KubeObject, "one", ["m1"]));
    await detector.synced?.();
    await works.synced?.();
  });
  after(async () => {
    for (const c of [kindsCtl, ...Object.values(controllers)]) await c.stop();
  });

  it("(a) one binding status write: one status reconcile, in the coalescing window; nothing else", async (t) => {
    const b = bindingsOfAll[0] as ResourceBinding;
    const got = await measure(() => bindings.put({ ...b, metadata: { ...b.metadata, resourceVersion: "2" }, status: { aggregatedStatus: [{ clusterName: "m0", applied: false }] } }));
    t.diagnostic(JSON.stringify(got));
    assert.deepEqual(got, { binding: 0, workCache: 0, status: 1, statusAtOnce: 0, bindingsRead: 0, clustersRead: 0 });
  });

  it("(b) one cluster's readiness flap under Duplicated placement: no reschedule, no re-render; the status of the bindings on it", async (t) => {
    const got = await measure(() => {
      clusters.put(clusterOf("m5", false));
      events.emit("clusterReadyChanged", "m5");
    });
    t.diagnostic(JSON.stringify(got));
    assert.deepEqual(got, { binding: 0, workCache: 0, status: T, statusAtOnce: 0, bindingsRead: 0, clustersRead: 0 });
  });

  it("(c) one cluster's agent connects: the status of the bindings on it, and no binding list read", async (t) => {
    const got = await measure(() => {
      events.emit("agentStreamChanged", "m7");
      events.emit("agentHolds", "m7", new Set(bindingsOfAll.map((b) => `apps/v1/Deployment/default/${b.spec.resource.name}`)));
    });
    t.diagnostic(JSON.stringify(got));
    assert.deepEqual(got, { binding: 0, workCache: 0, status: T, statusAtOnce: 0, bindingsRead: 0, clustersRead: 0 });
  });

  it("(c2) a reconnect storm, every cluster's agent at once: each binding on them is looked at once, after CLUSTER_CHANGE_GATHER_MS (each look is O(its clusters))", async () => {
    const queue = controllers.status.queue;
    const delays = new Map<string, number[]>();
    const addAfter = queue.addAfter.bind(queue);
    queue.addAfter = (k, ms) => (delays.set(k, [...(delays.get(k) ?? []), ms]), addAfter(k, ms));
    try {
      for (const n of names) events.emit("agentStreamChanged", n);
    } finally {
      queue.addAfter = addAfter;
    }
    assert.equal(delays.size, T + 1, "every binding on those clusters");
    for (const [k, ms] of delays) assert.ok(ms.every((d) => d === CLUSTER_CHANGE_GATHER_MS), `${k}: looked at after ${ms.join(", ")} ms (GATHER_MS before: up to ten looks a second at each binding during a storm)`);
  });

  it("(d) a label no placement reads, on one cluster: the bindings and Works on it, not the one elsewhere", async (t) => {
    const got = await measure(() => clusters.put({ ...clusterOf("m9", true), metadata: { name: "m9", labels: { team: "x" }, resourceVersion: "3" } }));
    t.diagnostic(JSON.stringify(got));
    assert.deepEqual(got, { binding: T, workCache: T, status: 0, statusAtOnce: 0, bindingsRead: 0, clustersRead: 0 });
  });

  it("(e) the first binding of a kind: the kinds controller runs, and looks at that kind's bindings only; its status waits for the coalescing window", async (t) => {
    const set: KubeObject = { ...templateOf("db"), kind: "StatefulSet" };
    const b = bindingOf(set, "all", ["m1"]);
    const got = await measure(() => bindings.put({ ...b, metadata: { ...b.metadata, name: "db-statefulset" }, spec: { ...b.spec, resource: { ...b.spec.resource, kind: "StatefulSet" } } }));
    t.diagnostic(JSON.stringify(got));
    assert.deepEqual(got, { binding: 1, workCache: 1, status: 1, statusAtOnce: 0, bindingsRead: 0, clustersRead: 0 });
  });

  it("(f) an override policy for one template: that template's Works re-rendered, no other", async (t) => {
    const override: OverridePolicy = {
      apiVersion: API_VERSION,
      kind: "ClusterOverridePolicy",
      metadata: { name: "o", resourceVersion: "1" },
      spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "t3" }], overrideRules: [] },
    };
    const got = await measure(() => fakes.of<OverridePolicy>("clusteroverridepolicies").put(override));
    t.diagnostic(JSON.stringify(got));
    assert.deepEqual(got, { binding: 0, workCache: 1, status: 0, statusAtOnce: 0, bindingsRead: 0, clustersRead: 0 });
  });

  it("(g) the clusters' reports of one change make one status write; that write, back through the informer, makes none", async () => {
    const b = bindingsOfAll[2] as ResourceBinding;
    const key = templateKey(templates[2] as KubeObject);
    const report = (cluster: string) => ({ workKey: key, observedHash: ctx.works.get(cluster, key)?.hash ?? "", applied: true, available: true, reason: "", message: "", manifests: [], deleted: false });
    const [first, ...rest] = b.spec.clusters.map((c) => c.name);
    applied.length = 0;
    ctx.statuses.set(first ?? "", report(first ?? ""));
    await controllers.status.process(key);
    assert.equal(applied.length, 0, "one cluster's ack of a change the others have not answered yet: no write");
    for (const c of rest) ctx.statuses.set(c, report(c));
    await controllers.status.process(key);
    assert.equal(applied.length, 1, "the last ack: one write");
    const written = applied[0]?.body.status;
    // The merged entries, as the apiserver would answer them (this replica owns every entry here).
    bindings.put({ ...b, metadata: { ...b.metadata, resourceVersion: "9" }, status: written });
    assert.equal(counts.status?.now.has(key), false, "an update of status only waits for the gathering window");
    await controllers.status.process(key);
    assert.equal(applied.length, 1, "nothing new to write");
  });

  it("(h) the reports of a binding still being written wait for it; once nothing is written for it, they go", async () => {
    const ahead = templateOf("ahead");
    const key = templateKey(ahead);
    ctx.statuses.set("m0", { workKey: key, observedHash: "h", applied: true, available: true, reason: "", message: "", manifests: [], deleted: false });
    const write = caches.bindingsAhead.writing(key, bindingOf(ahead, "all", names));
    await controllers.status.process(key);
    assert.equal(ctx.statuses.get(key).size, 1, "kept: the binding lands next, and the report is its only word from m0");
    caches.bindingsAhead.failed(key, write);
    await controllers.status.process(key);
    assert.equal(ctx.statuses.get(key).size, 0, "no binding, none being written: dropped");
  });

  it("a status reconcile of a binding on one cluster reads that cluster only", async (t) => {
    clusters.read = 0;
    await controllers.status.process(templateKey(templates[T] as KubeObject));
    t.diagnostic(`clusters read: ${clusters.read}`);
    assert.equal(clusters.read, 1);
  });
});
