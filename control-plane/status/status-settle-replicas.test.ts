// Issue 42, an adversarial review (status written once a change settles). Two replicas: the leader, and a
// replica that holds member m2's stream. m2 applies the new Deployment (Progressing, so its
// replica waits for it to settle before writing m2's entry), and the template is deleted within
// those 5 s. The leader sees no entry for m2 and releases the binding's finalizer although m2
// still holds the object (DESIGN §6: the binding stays, WaitingForRemoval, until each agent has
// confirmed the removal). Before issue 42 the replica wrote m2's entry within 1 s of its report.
// Fails on main at 64cc46c.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import { API_VERSION, type Cluster, type KubeObject, type ResourceBinding } from "../../shared/api/types.ts";
import { Health } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import { silentLogger } from "../../shared/logger.ts";
import { templateKey, type WorkRef, workKey } from "../../shared/work-key.ts";
import { Caches } from "../caches/caches.ts";
import { fakeInformers } from "../caches/fake-informer.fixtures.ts";
import type { TemplateInformers } from "../detector/template-informers.ts";
import { BINDING_FINALIZER } from "../scheduling/binding-spec.ts";
import { ScheduleOutcomes } from "../scheduling/schedule-outcomes.ts";
import { WorkStore } from "../works/work-store.ts";
import { writesEntry } from "./cluster-view.ts";
import { StatusController } from "./status-controller.ts";
import { StatusStore } from "./status-store.ts";

const NOW = "2026-11-23T10:00:00Z";
const cluster = (name: string): Cluster => ({
  apiVersion: API_VERSION,
  kind: "Cluster",
  metadata: { name },
  spec: {},
  status: { conditions: [{ type: "Ready", status: "True", reason: "", message: "", lastTransitionTime: NOW }] },
});
const template: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "default", uid: "u1", resourceVersion: "1" }, spec: { replicas: 1 } };
const binding = (over: Partial<ResourceBinding["metadata"]> = {}): ResourceBinding => ({
  apiVersion: API_VERSION,
  kind: "ResourceBinding",
  metadata: { name: "web-deployment", namespace: "default", resourceVersion: "2", finalizers: [BINDING_FINALIZER], ...over },
  spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "web", uid: "u1" }, clusters: [{ name: "m2" }] },
});

describe("review 42: a deleting binding's finalizer, with two replicas", () => {
  it("is not released while a member another replica hears still holds the object", async () => {
    const fakes = fakeInformers();
    const released: unknown[] = [];
    const applied: string[] = [];
    /** What replica r2's applies of status put in the binding (the informer shows them, as the apiserver's would). */
    let r2Status: ResourceBinding["status"];
    const rest = {
      apply: async (_p: string, body: { status: ResourceBinding["status"] }, manager: string) => {
        applied.push(manager);
        if (manager === "flotilla-status-r2") r2Status = body.status;
        return body;
      },
      mergePatch: async (_p: string, body: unknown) => (released.push(body), {}),
      request: async () => ({}),
    } as unknown as KubeRest;
    const caches = new Caches(new KubeConfig(), rest, silentLogger(), fakes.make);
    fakes.of<Cluster>("clusters").put(cluster("m2"));
    let live: KubeObject | undefined = template;
    const templates = {
      get: (ref: WorkRef) => (live !== undefined && workKey(ref) === templateKey(template) ? live : undefined),
      watching: () => true,
      resource: () => undefined,
    } as unknown as TemplateInformers;
    const works = new WorkStore();
    const key = templateKey(template);
    works.set("m2", { key, hash: "h1", manifests: [], conflictResolution: "Abort" });
    const replica = (leader: boolean, hears: string[], statuses: StatusStore) =>
      new StatusController({ caches, templates, works, statuses, outcomes: new ScheduleOutcomes(), rest, log: silentLogger(), isLeader: () => leader, heardHere: (c) => hears.includes(c), identity: leader ? "leader" : "r2" });
    const r2Statuses = new StatusStore();
    const r2 = replica(false, ["m2"], r2Statuses);
    const leader = replica(true, [], new StatusStore());

    fakes.of<ResourceBinding>("resourcebindings").put(binding());
    // m2's agent applied it; the Deployment is rolling out.
    r2Statuses.set("m2", { workKey: key, observedHash: "h1", applied: true, available: false, reason: "", message: "", deleted: false, manifests: [{ resource: undefined, applied: true, health: Health.HEALTH_PROGRESSING, reason: "", message: "", status: Buffer.alloc(0) }] });
    await r2.controller.process(key);
    if (r2Status !== undefined) fakes.of<ResourceBinding>("resourcebindings").put({ ...binding(), status: r2Status });
    // Two seconds later the user deletes the template; the garbage collector marks the binding deleted.
    live = undefined;
    fakes.of<ResourceBinding>("resourcebindings").put({ ...binding({ deletionTimestamp: NOW, resourceVersion: "3" }), ...(r2Status === undefined ? {} : { status: r2Status }) });
    await r2.controller.process(key);
    await leader.controller.process(key);
    assert.deepEqual(released, [], `the leader released the finalizer (${JSON.stringify(released)}) while m2 holds the object: no entry of m2 reached the binding (status applies: ${JSON.stringify(applied)})`);
  });

  it("a cluster handed to a following leader keeps its entry in the replica's apply of a deleting binding (the leader may not have written it: a leader that says it takes a cluster and dies never does)", async () => {
    const fakes = fakeInformers();
    let r2Status: ResourceBinding["status"];
    const rest = {
      apply: async (_p: string, body: { status: ResourceBinding["status"] }) => ((r2Status = body.status), body),
      mergePatch: async () => ({}),
      request: async () => ({}),
    } as unknown as KubeRest;
    const caches = new Caches(new KubeConfig(), rest, silentLogger(), fakes.make);
    for (const c of ["m1", "m2"]) fakes.of<Cluster>("clusters").put(cluster(c));
    const templates = { get: () => undefined, watching: () => true, resource: () => undefined } as unknown as TemplateInformers;
    const works = new WorkStore();
    const key = templateKey(template);
    const statuses = new StatusStore();
    // r2 hears m1 and m2; a following leader says it takes m1 (handed); m2's entry is persisted, m1's not yet.
    const heardHere = (c: string, deleting: boolean) => writesEntry({ heard: c === "m1" || c === "m2", leader: false, handed: c === "m1", forwarded: false, deleting });
    const r2 = new StatusController({ caches, templates, works, statuses, outcomes: new ScheduleOutcomes(), rest, log: silentLogger(), isLeader: () => false, heardHere, identity: "r2" });
    fakes.of<ResourceBinding>("resourcebindings").put({ ...binding({ deletionTimestamp: NOW, resourceVersion: "3" }), status: { aggregatedStatus: [{ clusterName: "m2", applied: true }] } });
    const applied = { observedHash: "h1", applied: true, available: true, reason: "", message: "", deleted: false, manifests: [] };
    statuses.set("m1", { workKey: key, ...applied });
    statuses.set("m2", { workKey: key, ...applied });
    await r2.controller.process(key);
    const entries = (r2Status?.aggregatedStatus ?? []).map((e) => `${e.clusterName} ${e.reason ?? ""}`);
    assert.ok(entries.includes("m1 WaitingForRemoval"), `m1 still holds the object: its entry is in r2's apply (${JSON.stringify(entries)})`);
  });
});
