import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject, ResourceBinding } from "../../shared/api/types.ts";
import { type DeletionIntent, deletionIntent, type JudgedCluster, READY_SETTLE_MS, type TemplateKnowledge, templateDeletionDecided } from "./deletion-intent.ts";

const template: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "default" } };
const binding = (clusters: string[], extra: { deleting?: boolean; preserve?: boolean; released?: string; unknown?: string } = {}): ResourceBinding => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceBinding",
  metadata: {
    name: "web-deployment",
    namespace: "default",
    ...(extra.deleting ? { deletionTimestamp: "2026-11-23T10:00:00Z" } : {}),
    ...(extra.released || extra.unknown
      ? { annotations: { ...(extra.released ? { "flotilla.dev/released-because": extra.released } : {}), ...(extra.unknown ? { "flotilla.dev/placement-unknown": extra.unknown } : {}) } }
      : {}),
  },
  spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "web" }, clusters: clusters.map((name) => ({ name })), ...(extra.preserve ? { preserveResourcesOnDeletion: true } : {}) },
});
const present: TemplateKnowledge = { known: true, template };
const gone: TemplateKnowledge = { known: true, template: undefined };
const deleting: TemplateKnowledge = { known: true, template: { ...template, metadata: { ...template.metadata, deletionTimestamp: "2026-11-23T10:00:00Z" } } };
const unknown: TemplateKnowledge = { known: false };
const m1 = { name: "member1", leaving: false, readyForMs: Infinity };

describe("deletionIntent", () => {
  const cases: { name: string; cluster?: JudgedCluster; binding: ResourceBinding | undefined; template: TemplateKnowledge; settleMs?: number; intent: DeletionIntent | undefined }[] = [
    { name: "the binding still targets the cluster and the template exists: keep (a render error, a suspension, a start)", binding: binding(["member1"]), template: present, intent: undefined },
    { name: "the binding targets the cluster, template kind not watched yet: keep", binding: binding(["member1"]), template: unknown, intent: undefined },
    { name: "the template is deleted", binding: binding(["member1"]), template: gone, intent: { reason: "TemplateDeleted", preserve: false } },
    { name: "the template is being deleted, under preserveResourcesOnDeletion", binding: binding(["member1"], { preserve: true }), template: deleting, intent: { reason: "TemplateDeleted", preserve: true } },
    { name: "the binding is being deleted after its template", binding: binding(["member1"], { deleting: true }), template: gone, intent: { reason: "TemplateDeleted", preserve: false } },
    { name: "a dependency's binding released on purpose (every parent let it go)", binding: binding(["member1"], { deleting: true, released: "DependencyReleased" }), template: present, intent: { reason: "DependencyReleased", preserve: false } },
    { name: "the binding deleted by hand while the template lives: keep (it is made again)", binding: binding(["member1"], { deleting: true }), template: present, intent: undefined },
    { name: "the binding is being deleted, template kind not listed yet: keep until it is known", binding: binding(["member1"], { deleting: true, preserve: true }), template: unknown, intent: undefined },
    { name: "a released binding, template kind not listed yet: keep until it is known", binding: binding(["member1"], { deleting: true, released: "DependencyReleased" }), template: unknown, intent: undefined },
    { name: "no binding while the template lives (deleted by hand, lost in a restore): keep", binding: undefined, template: present, intent: undefined },
    { name: "no binding, template kind not listed yet: keep", binding: undefined, template: unknown, intent: undefined },
    { name: "no binding and no template: the agent's record says whether to preserve", binding: undefined, template: gone, intent: { reason: "TemplateDeleted", preserve: false, preserveUnknown: true } },
    { name: "the placement no longer names the cluster", binding: binding(["member2"]), template: present, intent: { reason: "PlacementChanged", preserve: false } },
    { name: "the cluster is leaving (unjoin)", cluster: { name: "member1", leaving: true, readyForMs: 0 }, binding: binding(["member2"]), template: present, intent: { reason: "ClusterUnjoined", preserve: false } },
    { name: "the placement dropped a cluster that is not Ready: not sent there (readiness is no intent)", cluster: { ...m1, readyForMs: 0 }, binding: binding(["member2"]), template: present, intent: undefined },
    { name: "the cluster is Ready again but the scheduler may not have placed it yet: not yet", cluster: { ...m1, readyForMs: READY_SETTLE_MS - 1 }, binding: binding(["member2"]), template: present, intent: undefined },
    { name: "Ready long enough and still not placed there: the placement changed", cluster: { ...m1, readyForMs: READY_SETTLE_MS }, binding: binding(["member2"]), template: present, intent: { reason: "PlacementChanged", preserve: false } },
    { name: "a shorter --cluster-ready-settle-period: Ready that long is long enough", cluster: { ...m1, readyForMs: 2_000 }, binding: binding(["member2"]), template: present, settleMs: 2_000, intent: { reason: "PlacementChanged", preserve: false } },
    { name: "…and just under it, not yet", cluster: { ...m1, readyForMs: 1_999 }, binding: binding(["member2"]), template: present, settleMs: 2_000, intent: undefined },
    { name: "a not-Ready cluster still hears of a deleted template", cluster: { ...m1, readyForMs: 0 }, binding: binding(["member1"], { deleting: true }), template: gone, intent: { reason: "TemplateDeleted", preserve: false } },
    { name: "a not-Ready cluster that is leaving still cleans up (unjoin)", cluster: { name: "member1", leaving: true, readyForMs: 0 }, binding: binding(["member2"]), template: present, intent: { reason: "ClusterUnjoined", preserve: false } },
    { name: "--require-acceptance: a member that registered again, not accepted yet, keeps what it runs", cluster: { ...m1, accepted: false }, binding: binding(["member2"]), template: present, intent: undefined },
    { name: "…nor is told of a template deleted while it was away: held until accepted (issue 20 item 4)", cluster: { ...m1, accepted: false }, binding: binding(["member2"], { deleting: true }), template: gone, intent: undefined },
    { name: "…nor of one whose binding is gone too", cluster: { ...m1, accepted: false }, binding: undefined, template: gone, intent: undefined },
    { name: "…nor of a released dependency", cluster: { ...m1, accepted: false }, binding: binding(["member2"], { deleting: true, released: "DependencyReleased" }), template: present, intent: undefined },
    { name: "a cluster not accepted that its placement still names (placed before acceptance was required) follows its template's deletion", cluster: { ...m1, accepted: false }, binding: binding(["member1"], { deleting: true }), template: gone, intent: { reason: "TemplateDeleted", preserve: false } },
    { name: "…and a released dependency placed there", cluster: { ...m1, accepted: false }, binding: binding(["member1"], { deleting: true, released: "DependencyReleased" }), template: present, intent: { reason: "DependencyReleased", preserve: false } },
    { name: "once accepted, the deleted template's removal is sent", cluster: { ...m1, accepted: true }, binding: undefined, template: gone, intent: { reason: "TemplateDeleted", preserve: false, preserveUnknown: true } },
    { name: "a cluster not accepted that is unjoined still cleans up", cluster: { name: "member1", leaving: true, readyForMs: 0, accepted: false }, binding: binding(["member2"]), template: present, intent: { reason: "ClusterUnjoined", preserve: false } },
    { name: "…also of a deleted template", cluster: { name: "member1", leaving: true, readyForMs: 0, accepted: false }, binding: undefined, template: gone, intent: { reason: "TemplateDeleted", preserve: false, preserveUnknown: true } },
    { name: "a binding made again while its policy is held, its clusters never decided (placement-unknown): keep", binding: binding([], { unknown: "DependentOverridesMissing" }), template: present, intent: undefined },
    { name: "…nor over quota, whatever clusters it kept", binding: binding(["member2"], { unknown: "QuotaExceeded" }), template: present, intent: undefined },
    { name: "…but a cluster it names still follows its template's deletion", binding: binding(["member1"], { unknown: "QuotaExceeded" }), template: gone, intent: { reason: "TemplateDeleted", preserve: false } },
    { name: "…and so does one it does not name, once the template is gone and the binding being deleted", binding: binding([], { unknown: "QuotaExceeded", deleting: true }), template: gone, intent: { reason: "TemplateDeleted", preserve: false } },
    { name: "…and a leaving cluster still cleans up (unjoin)", cluster: { name: "member1", leaving: true, readyForMs: 0 }, binding: binding([], { unknown: "QuotaExceeded" }), template: present, intent: { reason: "ClusterUnjoined", preserve: false } },
    { name: "a preserving binding that moved off the cluster deletes there (preservation is for template deletion)", binding: binding(["member2"], { preserve: true }), template: present, intent: { reason: "PlacementChanged", preserve: false } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(deletionIntent(c.cluster ?? m1, c.binding, c.template, c.settleMs ?? READY_SETTLE_MS), c.intent));
});

describe("deletionIntent: a dependency whose workload is placed or runs there waits for it to go first (issue 37, found by the deletion model)", () => {
  const conf: ResourceBinding = {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "ResourceBinding",
    metadata: { name: "conf-configmap", namespace: "default" },
    spec: { resource: { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "conf" }, clusters: [{ name: "member2" }], requiredBy: [{ name: "web-deployment", clusters: ["member2"] }] },
  };
  const unnamed: ResourceBinding = { ...conf, spec: { ...conf.spec, requiredBy: [] } };
  const web = (clusters: string[], extra: { propagateDeps?: boolean; deleting?: boolean } = {}): ResourceBinding => ({
    ...binding(clusters, { deleting: extra.deleting === true }),
    spec: { ...binding(clusters).spec, ...(extra.propagateDeps === true ? { propagateDeps: true } : {}) },
  });
  const WEB = "apps/v1/Deployment/default/web";
  const confTemplate: TemplateKnowledge = { known: true, template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "conf", namespace: "default" } } };
  const changed: DeletionIntent = { reason: "PlacementChanged", preserve: false };
  const waits: DeletionIntent = { ...changed, waitsFor: WEB };
  const cases: { name: string; dependency: ResourceBinding; workload: ResourceBinding | undefined; template?: TemplateKnowledge; runs?: string[]; intent: DeletionIntent | undefined }[] = [
    { name: "its workload, under propagateDeps, is placed there (the dependency's binding has not followed yet): waits for it", dependency: conf, workload: web(["member1", "member2"], { propagateDeps: true }), intent: waits },
    { name: "its workload is placed elsewhere: the placement changed", dependency: conf, workload: web(["member2"], { propagateDeps: true }), intent: changed },
    { name: "its workload is placed elsewhere but still runs there (its removal not sent yet): waits, the workload goes first", dependency: conf, workload: web(["member2"], { propagateDeps: true }), runs: [WEB], intent: waits },
    { name: "…another Work running there is no reason", dependency: conf, workload: web(["member2"], { propagateDeps: true }), runs: ["apps/v1/Deployment/default/other"], intent: changed },
    { name: "a workload being deleted, placed there: the placement changed", dependency: conf, workload: web(["member1"], { propagateDeps: true, deleting: true }), intent: changed },
    { name: "…but still running there (its removal held): waits, the workload goes first", dependency: conf, workload: web(["member1"], { propagateDeps: true, deleting: true }), runs: [WEB], intent: waits },
    {
      name: "released (no workload requires it now) while a workload that required it still runs there: waits",
      dependency: { ...conf, metadata: { ...conf.metadata, deletionTimestamp: "2026-11-30T10:00:00Z", annotations: { "flotilla.dev/released-because": "DependencyReleased" } } },
      workload: web(["member1"], { propagateDeps: true, deleting: true }),
      runs: [WEB],
      intent: { reason: "DependencyReleased", preserve: false, waitsFor: WEB },
    },
    {
      name: "released while the workload that required it stays placed there (it no longer refers to it): released, no wait",
      dependency: { ...conf, metadata: { ...conf.metadata, deletionTimestamp: "2026-11-30T10:00:00Z", annotations: { "flotilla.dev/released-because": "DependencyReleased" } } },
      workload: web(["member1"], { propagateDeps: true }),
      runs: [WEB],
      intent: { reason: "DependencyReleased", preserve: false },
    },
    {
      name: "released, and the workload, made again, placed there says it requires it: waits (its binding is released next)",
      dependency: { ...conf, metadata: { ...conf.metadata, deletionTimestamp: "2026-11-30T10:00:00Z", annotations: { "flotilla.dev/released-because": "DependencyReleased" } } },
      workload: { ...web(["member1"], { propagateDeps: true }), metadata: { ...web(["member1"]).metadata, annotations: { "flotilla.dev/requires": "core/v1/ConfigMap/default/conf" } } },
      intent: { reason: "DependencyReleased", preserve: false, waitsFor: WEB },
    },
    {
      name: "…and once it is gone there: released",
      dependency: { ...conf, metadata: { ...conf.metadata, deletionTimestamp: "2026-11-30T10:00:00Z", annotations: { "flotilla.dev/released-because": "DependencyReleased" } } },
      workload: web(["member1"], { propagateDeps: true, deleting: true }),
      intent: { reason: "DependencyReleased", preserve: false },
    },
    { name: "a workload without propagateDeps its requiredBy names (it refers to it), placed there: waits", dependency: conf, workload: web(["member1"]), intent: waits },
    { name: "…or still running there, though its requirement no longer names the cluster: waits", dependency: conf, workload: web(["member2"]), runs: [WEB], intent: waits },
    { name: "a workload without propagateDeps its requiredBy does not name, placed there: the placement changed", dependency: unnamed, workload: web(["member1"]), intent: changed },
    { name: "a workload its requiredBy does not name yet, under propagateDeps (its binding says it requires it), placed there: waits", dependency: unnamed, workload: web(["member1"], { propagateDeps: true }), intent: waits },
    { name: "no workload needs it: the placement changed", dependency: conf, workload: undefined, intent: changed },
    {
      name: "the dependency's own template is deleted: deleted, whatever its workloads",
      dependency: { ...conf, metadata: { ...conf.metadata, deletionTimestamp: "2026-11-30T10:00:00Z" } },
      workload: web(["member1"], { propagateDeps: true }),
      template: gone,
      intent: { reason: "TemplateDeleted", preserve: false },
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(deletionIntent(m1, c.dependency, c.template ?? confTemplate, READY_SETTLE_MS, { needing: () => (c.workload === undefined ? [] : [c.workload]), runs: (key) => c.runs?.includes(key) === true }), c.intent));
  }
});

describe("templateDeletionDecided: when a kept absence is judged again on a change of its key (kept-absences.ts)", () => {
  const cases: { name: string; binding: ResourceBinding | undefined; template: TemplateKnowledge; want: boolean }[] = [
    { name: "the template gone, no binding", binding: undefined, template: gone, want: true },
    { name: "the template being deleted, no binding", binding: undefined, template: deleting, want: true },
    { name: "the template gone, its binding being deleted", binding: binding(["member1"], { deleting: true }), template: gone, want: true },
    { name: "the template lives, no binding (deleted by hand: made again)", binding: undefined, template: present, want: false },
    { name: "the template lives, its binding being deleted", binding: binding(["member1"], { deleting: true }), template: present, want: false },
    { name: "the template gone, a binding not being deleted (the placement decides per cluster)", binding: binding([]), template: gone, want: false },
    { name: "the template's kind not listed yet (unknown, not gone)", binding: undefined, template: unknown, want: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(templateDeletionDecided(c.binding, c.template), c.want);
      // When it decides, the judge answers TemplateDeleted on any cluster, placed there or not.
      if (c.want) for (const cluster of [m1, { ...m1, name: "elsewhere" }]) assert.equal(deletionIntent(cluster, c.binding, c.template, READY_SETTLE_MS)?.reason, "TemplateDeleted");
    });
  }
});
