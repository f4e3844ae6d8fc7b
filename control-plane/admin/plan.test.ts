import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster, KubeObject, OverridePolicy, PropagationPolicy, PropagationSpec, ResourceBinding } from "../../shared/api/types.ts";
import { desiredBinding } from "../scheduling/binding-spec.ts";
import { type Change, planTemplate } from "./plan.ts";
import { renderClusterWorks } from "../rendering/render-works.ts";
import { scheduleTemplate } from "../scheduling/schedule.ts";

const cluster = (name: string, region: string): Cluster => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "Cluster",
  metadata: { name, labels: { region } },
  spec: { region },
  status: { conditions: [{ type: "Ready", status: "True", reason: "", message: "", lastTransitionTime: "" }] },
});
const CLUSTERS = [cluster("member1", "eu"), cluster("member2", "eu"), cluster("member3", "us")];
const named = (n: string) => CLUSTERS.find((c) => c.metadata.name === n);

const deployment = (replicas: number, image = "nginx:1.25", labels: Record<string, string> = { app: "web" }): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "default", uid: "u1", labels },
  spec: { replicas, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image }] } } },
});

const policy = (spec: Partial<PropagationSpec> = {}): PropagationPolicy => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "PropagationPolicy",
  metadata: { name: "web", namespace: "default" },
  spec: {
    resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", labelSelector: { matchLabels: { app: "web" } } }],
    placement: {
      clusterAffinity: { clusterNames: ["member1", "member2"] },
      replicaScheduling: {
        replicaSchedulingType: "Divided",
        replicaDivisionPreference: "Weighted",
        weightPreference: { staticWeightList: [{ targetCluster: { clusterNames: ["member1"] }, weight: 1 }, { targetCluster: { clusterNames: ["member2"] }, weight: 2 }] },
      },
    },
    ...spec,
  },
});

const member2Override = (plaintext: { path: string; operator: "add" | "remove" | "replace"; value?: unknown }[]): OverridePolicy => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "OverridePolicy",
  metadata: { name: "m2", namespace: "default" },
  spec: { overrideRules: [{ targetCluster: { clusterNames: ["member2"] }, overriders: { plaintext } }] },
});

/** The control plane's state for a template as the controllers leave it: its binding and Works. */
function applied(template: KubeObject, p: PropagationPolicy, overrides: OverridePolicy[] = []) {
  const schedule = scheduleTemplate(template, p, CLUSTERS);
  const binding: ResourceBinding = desiredBinding(template, p, schedule.targets);
  const works = renderClusterWorks(template, binding.spec.clusters, named, overrides, binding.spec.conflictResolution ?? "Abort");
  return {
    existing: binding,
    workNow: (c: string) => {
      const w = works.get(c);
      return w?.ok ? { hash: w.hash, manifests: w.manifests } : undefined;
    },
  };
}

describe("planTemplate", () => {
  const cases: {
    name: string;
    now?: { template: KubeObject; policy: PropagationPolicy; overrides?: OverridePolicy[] };
    proposed: KubeObject;
    policies: PropagationPolicy[];
    overrides?: OverridePolicy[];
    want: { policy?: string; clusters: [string, Change, number | undefined, number | undefined][] };
  }[] = [
    {
      name: "the same object changes nothing: the hashes are the ones the Work cache computes",
      now: { template: deployment(9), policy: policy() },
      proposed: deployment(9),
      policies: [policy()],
      want: { policy: "PropagationPolicy default/web", clusters: [["member1", "unchanged", 3, 3], ["member2", "unchanged", 6, 6]] },
    },
    {
      name: "more replicas: each cluster's share grows by its weight",
      now: { template: deployment(9), policy: policy() },
      proposed: deployment(12),
      policies: [policy()],
      want: { policy: "PropagationPolicy default/web", clusters: [["member1", "changed", 3, 4], ["member2", "changed", 6, 8]] },
    },
    {
      name: "a new template goes where its policy places it",
      proposed: deployment(3),
      policies: [policy()],
      want: { policy: "PropagationPolicy default/web", clusters: [["member1", "added", undefined, 1], ["member2", "added", undefined, 2]] },
    },
    {
      name: "a label no policy selects keeps its last placement (DESIGN §11: no policy is no intent)",
      now: { template: deployment(9), policy: policy() },
      proposed: deployment(9, "nginx:1.25", { app: "other" }),
      policies: [policy()],
      want: { clusters: [["member1", "changed", 3, 3], ["member2", "changed", 6, 6]] },
    },
    {
      name: "an override that cannot apply to the new object fails that cluster only",
      now: { template: deployment(9), policy: policy() },
      proposed: deployment(9, "nginx:1.26"),
      policies: [policy()],
      overrides: [member2Override([{ path: "/spec/template/spec/volumes/0", operator: "remove" }])],
      want: { policy: "PropagationPolicy default/web", clusters: [["member1", "changed", 3, 3], ["member2", "failed", 6, 6]] },
    },
    {
      name: "a suspended cluster keeps what it has",
      now: { template: deployment(9), policy: policy({ suspension: { dispatchingOnClusters: { clusterNames: ["member2"] } } }) },
      proposed: deployment(9, "nginx:1.26"),
      policies: [policy({ suspension: { dispatchingOnClusters: { clusterNames: ["member2"] } } })],
      want: { policy: "PropagationPolicy default/web", clusters: [["member1", "changed", 3, 3], ["member2", "suspended", 6, 6]] },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const state = c.now ? applied(c.now.template, c.now.policy, c.now.overrides) : { existing: undefined, workNow: () => undefined };
      const plan = planTemplate({
        template: c.proposed,
        policies: c.policies,
        liveClusters: CLUSTERS,
        clusterNamed: named,
        overrides: c.overrides ?? [],
        ...(state.existing ? { existing: state.existing } : {}),
        workNow: state.workNow,
      });
      assert.equal(plan.policy, c.want.policy);
      assert.deepEqual(
        plan.clusters.map((p) => [p.cluster, p.change, p.now?.replicas, p.planned?.replicas]),
        c.want.clusters,
      );
    });
  }

  it("a cluster an application failover holds out stays out, and its kept copy stays (issue 26)", () => {
    const p = policy({ failover: { application: { decisionConditions: { tolerationSeconds: 0 }, purgeMode: "Never" } } });
    const state = applied(deployment(9), p);
    const existing: ResourceBinding = {
      ...state.existing,
      spec: {
        ...state.existing.spec,
        clusters: [{ name: "member1", replicas: 3 }, { name: "member2", replicas: 9 }],
        gracefulEvictionTasks: [{ fromCluster: "member1", replicas: 3, reason: "ApplicationFailure", creationTimestamp: "2026-11-25T10:00:00Z", purgeMode: "Never", suppressDeletion: true }],
      },
      // Unhealthy everywhere: a plan judges no health and starts no failover.
      status: { aggregatedStatus: ["member1", "member2"].map((clusterName) => ({ clusterName, applied: true, health: "Unhealthy" as const })) },
    };
    const plan = planTemplate({ template: deployment(12), policies: [p], liveClusters: CLUSTERS, clusterNamed: named, overrides: [], existing, workNow: state.workNow });
    assert.deepEqual(
      plan.clusters.map((c) => [c.cluster, c.planned?.replicas]),
      [
        ["member1", 3],
        ["member2", 12],
      ],
    );
  });

  it("shows the rendered object after overrides, and the error of one that cannot apply", () => {
    const state = applied(deployment(9), policy());
    const plan = planTemplate({ template: deployment(9, "nginx:1.26"), policies: [policy()], liveClusters: CLUSTERS, clusterNamed: named, overrides: [member2Override([{ path: "/spec/paused", operator: "add", value: true }])], existing: state.existing, workNow: state.workNow });
    const m2 = plan.clusters.find((p) => p.cluster === "member2");
    const obj = JSON.parse(String(m2?.planned?.manifests[0])) as { spec: { paused?: boolean; replicas: number; template: { spec: { containers: { image: string }[] } } } };
    assert.equal(obj.spec.paused, true);
    assert.equal(obj.spec.replicas, 6);
    assert.equal(obj.spec.template.spec.containers[0]?.image, "nginx:1.26");
    assert.equal(JSON.parse(String(m2?.now?.manifests[0])).spec.template.spec.containers[0].image, "nginx:1.25");

    const failing = planTemplate({ template: deployment(9), policies: [policy()], liveClusters: CLUSTERS, clusterNamed: named, overrides: [member2Override([{ path: "/spec/nothing/here", operator: "remove" }])], existing: state.existing, workNow: state.workNow });
    const f = failing.clusters.find((p) => p.cluster === "member2");
    assert.match(f?.planned?.error ?? "", /\/spec\/nothing\/here/);
    assert.deepEqual(f?.planned?.manifests, []);
  });

  it("keeps the clusters it has when the policy cannot be scheduled, and says why", () => {
    const state = applied(deployment(9), policy());
    const unschedulable = policy({ placement: { ...policy().spec.placement, spreadConstraints: [{ spreadByField: "region", minGroups: 2, maxGroups: 2 }] } });
    const plan = planTemplate({ template: deployment(9), policies: [unschedulable], liveClusters: CLUSTERS, clusterNamed: named, overrides: [], existing: state.existing, workNow: state.workNow });
    assert.match(plan.scheduleMessage ?? "", /region/);
    assert.deepEqual(plan.clusters.map((p) => [p.cluster, p.change]), [["member1", "unchanged"], ["member2", "unchanged"]]);
  });
});
