// DependencyTracker.requiredBy over caches fed by hand: which parents a dependency stays required
// by when a parent's binding is missing or deleted by hand (unbound-parent.ts), the fault that
// must not release a ConfigMap under a running workload, and when the parent really let go.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import { type KubeObject, LABELS, type ResourceBinding } from "../../shared/api/types.ts";
import { NATIVE_INTERPRETERS } from "../../shared/interpreter/registry.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import { silentLogger } from "../../shared/logger.ts";
import { Caches } from "../caches/caches.ts";
import { fakeInformers } from "../caches/fake-informer.fixtures.ts";
import type { RequiredBy } from "../scheduling/binding-spec.ts";
import { DependencyTracker } from "./dependency-tracker.ts";
import { fakeTemplates } from "./template-informers.fixtures.ts";

const NS = "shop";
const conf: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "conf", namespace: NS, uid: "c1" } };
const web = (mounts = true): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: NS, uid: "w1", resourceVersion: mounts ? "1" : "2" },
  spec: { template: { spec: { containers: [{ name: "c", image: "nginx", ...(mounts ? { envFrom: [{ configMapRef: { name: "conf" } }] } : {}) }] } } },
});
const webRef = { apiVersion: "apps/v1", kind: "Deployment", namespace: NS, name: "web" };
const webBinding = (extra: { deleting?: boolean; released?: boolean } = {}): ResourceBinding => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceBinding",
  metadata: {
    name: "web-deployment",
    namespace: NS,
    ...(extra.deleting ? { deletionTimestamp: "2026-12-01T00:00:00Z" } : {}),
    ...(extra.released ? { annotations: { [LABELS.releasedBecause]: "DependencyReleased" } } : {}),
  },
  spec: { resource: { ...webRef, uid: "w1" }, clusters: [{ name: "m1" }, { name: "m2" }], propagateDeps: true },
});
/** The ConfigMap's binding, required by web on m1 (with or without the entry naming web's template). */
const confBinding = (named = true): ResourceBinding => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceBinding",
  metadata: { name: "conf-configmap", namespace: NS },
  spec: { resource: { apiVersion: "v1", kind: "ConfigMap", namespace: NS, name: "conf", uid: "c1" }, clusters: [{ name: "m1" }], requiredBy: [{ name: "web-deployment", clusters: ["m1"], ...(named ? { resource: webRef } : {}) }] },
});

function requiredBy(opts: { parent?: KubeObject; binding?: ResourceBinding; watched?: boolean; named?: boolean }): RequiredBy[] {
  const fakes = fakeInformers();
  const caches = new Caches(new KubeConfig(), {} as KubeRest, silentLogger(), fakes.make);
  if (opts.binding !== undefined) fakes.of<ResourceBinding>("resourcebindings").put(opts.binding);
  const fixed = fakeTemplates([conf, ...(opts.parent ? [opts.parent] : [])]);
  const templates = Object.assign(Object.create(fixed) as typeof fixed, {
    watching: (k: { kind: string }) => k.kind !== "Deployment" || opts.watched !== false,
    kinds: () => [{ apiVersion: "v1", kind: "ConfigMap" }, ...(opts.watched === false ? [] : [{ apiVersion: "apps/v1", kind: "Deployment" }])],
  });
  const tracker = new DependencyTracker({ caches, templates, interpreters: NATIVE_INTERPRETERS });
  return tracker.requiredBy(conf, confBinding(opts.named ?? true));
}

const keptAsBefore = [{ name: "web-deployment", clusters: ["m1"], resource: webRef }];

describe("DependencyTracker.requiredBy: a parent whose binding is missing or deleted by hand (unbound-parent.ts)", () => {
  const cases: { name: string; input: Parameters<typeof requiredBy>[0]; want: RequiredBy[] }[] = [
    { name: "its binding stands (propagateDeps): required where it is placed, its template named", input: { parent: web(), binding: webBinding() }, want: [{ name: "web-deployment", clusters: ["m1", "m2"], resource: webRef }] },
    { name: "its binding missing, its template lives and mounts it: kept as it was", input: { parent: web() }, want: keptAsBefore },
    { name: "its binding deleted by hand, its template lives and mounts it: kept as it was", input: { parent: web(), binding: webBinding({ deleting: true }) }, want: keptAsBefore },
    { name: "its binding missing, its kind not watched: cannot tell, kept", input: { watched: false }, want: keptAsBefore },
    { name: "an entry from before `resource`, its binding missing, its template lives: kept, and now named", input: { parent: web(), named: false }, want: keptAsBefore },
    { name: "an entry from before `resource`, nothing of that name: a name alone never tells it is gone, kept", input: { named: false }, want: [{ name: "web-deployment", clusters: ["m1"] }] },
    // What the parent meant: let go.
    { name: "its binding missing, its template gone: let go", input: {}, want: [] },
    { name: "its binding missing, its template no longer mounts it: let go", input: { parent: web(false) }, want: [] },
    { name: "its binding released on purpose (DependencyReleased): let go", input: { parent: web(), binding: webBinding({ deleting: true, released: true }) }, want: [] },
    { name: "its template being deleted: let go", input: { parent: { ...web(), metadata: { ...web().metadata, deletionTimestamp: "2026-12-01T00:00:00Z" } } }, want: [] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(requiredBy(c.input), c.want));
});
