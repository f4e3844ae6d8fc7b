// Issue 21 on real members. The native interpreters divide, revise and sum kinds that only had
// spec.replicas read before: a Divided Job (parallelism 4, completions 8) runs 2 + 2 with
// completions 4 + 4, and its template reports the fleet's succeeded 8 and Complete, as `kubectl get
// job` on the control cluster shows (the members' Jobs complete through kwok's pod-complete stage
// and their own job controllers). A CRD of our own, taught to Flotilla by a
// ResourceInterpreterCustomization (Karmada's API, Lua scripts run by the control plane), has its
// replicas at a path of their own divided, each member's copy revised to its share, and the
// members' statuses (written by the test, as the members' operator would) summed by the script into
// the template's; a customization edited live changes the next status with nothing restarted, and a
// script that fails says InterpreterFailed on the binding and removes nothing. A second CRD's
// customization runs in the agents (Retain, ReflectStatus, InterpretHealth): it reaches them by
// hash, judges the members' copies, picks what they report, keeps a field the member owns, is not
// sent again to a restarted agent, and a failing script is said on the binding with nothing removed.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type BindingJson, condition, eventually, getJson, kubectl } from "./helpers.ts";

const NS = "interpret";
const GIZMOS = "gizmos";
const GROUP = "interp.flotilla.dev";

interface JobJson {
  metadata: { uid: string };
  spec: { parallelism?: number; completions?: number };
  status?: { succeeded?: number; active?: number; failed?: number; startTime?: string; completionTime?: string; conditions?: { type: string; status: string }[] };
}

const crd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `gizmos.${GROUP}` },
  spec: {
    group: GROUP,
    scope: "Namespaced",
    names: { plural: "gizmos", singular: "gizmo", kind: "Gizmo" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true }, status: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } } },
      },
    ],
  },
};

/** GetReplicas reads spec.fleet.count; ReviseReplica writes it; AggregateStatus sums status.ready (times `factor`). */
const REVISE = "function ReviseReplica(obj, desiredReplica)\n  obj.spec.fleet.count = desiredReplica\n  return obj\nend";
const customization = (factor: number, replicaScript = "function GetReplicas(obj)\n  return obj.spec.fleet.count, nil\nend", reviseScript = REVISE) => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceInterpreterCustomization",
  metadata: { name: "gizmo" },
  spec: {
    target: { apiVersion: `${GROUP}/v1`, kind: "Gizmo" },
    customizations: {
      replicaResource: { luaScript: replicaScript },
      replicaRevision: { luaScript: reviseScript },
      statusAggregation: {
        luaScript: `function AggregateStatus(desiredObj, statusItems)\n  if statusItems == nil then\n    return desiredObj\n  end\n  local ready = 0\n  for i = 1, #statusItems do\n    if statusItems[i].status ~= nil and statusItems[i].status.ready ~= nil then\n      ready = ready + statusItems[i].status.ready\n    end\n  end\n  desiredObj.status = { ready = ready * ${factor}, clusters = #statusItems }\n  return desiredObj\nend`,
      },
    },
  },
});

interface GizmoJson {
  metadata: { uid: string };
  spec: { fleet: { count: number } };
  status?: { ready?: number; clusters?: number };
}

describe("the resource interpreter on real members", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  before(async () => {
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet);
    await kubectl(fleet.control, ["create", "namespace", NS]);
    await kubectl(fleet.control, ["create", "namespace", GIZMOS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("a Divided Job (parallelism 4, completions 8) runs 2 + 2 with completions 4 + 4 and its template sums succeeded 8 with Complete", async () => {
    await apply(
      fleet.control,
      JSON.stringify({
        apiVersion: "batch/v1",
        kind: "Job",
        metadata: { name: "batch", namespace: NS },
        spec: { parallelism: 4, completions: 8, template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } } },
      }),
    );
    await apply(
      fleet.control,
      JSON.stringify({
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "PropagationPolicy",
        metadata: { name: "batch", namespace: NS },
        spec: {
          resourceSelectors: [{ apiVersion: "batch/v1", kind: "Job", name: "batch" }],
          placement: {
            clusterAffinity: { clusterNames: ["member1", "member2"] },
            replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { staticWeightList: [{ targetCluster: {}, weight: 1 }] } },
          },
        },
      }),
    );
    const binding = await eventually("the Job divided 2 + 2", () => getJson<BindingJson>(fleet.control, ["rb", "-n", NS, "batch-job"]), (b) => b.spec.clusters.map((c) => `${c.name}=${c.replicas}`).join(" ") === "member1=2 member2=2");
    assert.equal((binding as BindingJson & { spec: { replicas?: number } }).spec.replicas, 4, "the binding's replicas are the Job's parallelism");
    for (const m of fleet.members as Cluster[]) {
      const job = await eventually(`the Job in ${m.name}`, () => getJson<JobJson>(m, ["job", "-n", NS, "batch"]), () => true);
      assert.deepEqual({ parallelism: job.spec.parallelism, completions: job.spec.completions }, { parallelism: 2, completions: 4 }, m.name);
    }
    const template = await eventually(
      "the template's succeeded 8 and Complete",
      () => getJson<JobJson>(fleet.control, ["job", "-n", NS, "batch"]),
      (j) => j.status?.succeeded === 8 && j.status.conditions?.some((c) => c.type === "Complete" && c.status === "True") === true,
      120_000,
    );
    assert.equal(template.status?.failed ?? 0, 0);
    assert.ok(template.status?.startTime !== undefined && template.status.completionTime !== undefined, "start and completion times summed from the members");
    // What a user sees: the fleet's completions on the control cluster.
    const table = await kubectl(fleet.control, ["get", "job", "-n", NS, "batch"]);
    assert.match(table, /\bbatch\s+(Complete\s+)?8\/8\b/, table);
  });

  it("is divided at its own path, revised per member, and summed by its script; an edit changes the next status; a failing script removes nothing", async () => {
    const [m1, m2] = fleet.members as [Cluster, Cluster];
    await apply(fleet.control, JSON.stringify(crd));
    await kubectl(fleet.control, ["wait", "--for=condition=Established", `crd/gizmos.${GROUP}`, "--timeout=60s"]);
    await apply(
      fleet.control,
      JSON.stringify({
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "ClusterPropagationPolicy",
        metadata: { name: "gizmo-crd" },
        spec: { resourceSelectors: [{ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name: `gizmos.${GROUP}` }] },
      }),
    );
    await apply(fleet.control, JSON.stringify(customization(1)));
    await apply(fleet.control, JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: "Gizmo", metadata: { name: "g", namespace: GIZMOS }, spec: { fleet: { count: 6 } } }));
    await apply(
      fleet.control,
      JSON.stringify({
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "PropagationPolicy",
        metadata: { name: "g", namespace: GIZMOS },
        spec: {
          resourceSelectors: [{ apiVersion: `${GROUP}/v1`, kind: "Gizmo", name: "g" }],
          placement: {
            clusterAffinity: { clusterNames: ["member1", "member2"] },
            replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { staticWeightList: [{ targetCluster: {}, weight: 1 }] } },
          },
        },
      }),
    );
    const bindings = async () => (await getJson<{ items: (BindingJson & { spec: { replicas?: number; resource: { kind: string } } })[] }>(fleet.control, ["rb", "-n", GIZMOS]))?.items.find((b) => b.spec.resource.kind === "Gizmo");
    const placed = await eventually("the Gizmo divided 3 + 3 from spec.fleet.count", bindings, (b) => b.spec.clusters.map((c) => `${c.name}=${c.replicas}`).join(" ") === "member1=3 member2=3");
    assert.equal(placed.spec.replicas, 6);
    const copies = new Map<string, GizmoJson>();
    for (const m of [m1, m2]) {
      const g = await eventually(`the Gizmo in ${m.name} with its share at spec.fleet.count`, () => getJson<GizmoJson>(m, [`gizmos.${GROUP}`, "-n", GIZMOS, "g"]), (x) => x.spec.fleet.count === 3);
      copies.set(m.name, g);
    }

    // The members' operator reports: 2 ready in member1, 3 in member2.
    for (const [m, ready] of [[m1, 2], [m2, 3]] as const) {
      await kubectl(m, ["patch", `gizmos.${GROUP}`, "g", "-n", GIZMOS, "--subresource=status", "--type=merge", "-p", JSON.stringify({ status: { ready } })]);
    }
    const template = () => getJson<GizmoJson>(fleet.control, [`gizmos.${GROUP}`, "-n", GIZMOS, "g"]);
    await eventually("the template's status summed by the script", template, (g) => g.status?.ready === 5 && g.status.clusters === 2);

    // Edited live: the next status is the new script's, with nothing restarted.
    const runs = flotilla.controlPlane.runs;
    await apply(fleet.control, JSON.stringify(customization(10)));
    await eventually("the edited script's sum", template, (g) => g.status?.ready === 50);
    assert.equal(flotilla.controlPlane.runs, runs, "the control plane was not restarted");

    // A script that fails for this object: the binding says why, the members keep their copies.
    await apply(fleet.control, JSON.stringify(customization(10, "function GetReplicas(obj)\n  return obj.spec.missing.count, nil\nend")));
    const failed = await eventually("InterpreterFailed on the binding", bindings, (b) => condition(b, "Scheduled")?.reason === "InterpreterFailed");
    assert.match(condition(failed, "Scheduled")?.message ?? "", /^InterpretReplica: .*luaScript:2: .*missing/);
    assert.deepEqual(failed.spec.clusters.map((c) => `${c.name}=${c.replicas}`), ["member1=3", "member2=3"], "the binding keeps what it had");
    await new Promise((r) => setTimeout(r, 3_000));
    for (const m of [m1, m2]) {
      const g = await getJson<GizmoJson>(m, [`gizmos.${GROUP}`, "-n", GIZMOS, "g"]);
      assert.equal(g?.metadata.uid, copies.get(m.name)?.metadata.uid, `${m.name} keeps its Gizmo`);
      assert.equal(g?.spec.fleet.count, 3);
    }

    // Issue 37: a ReviseReplica that returns another object (renamed) fails as a failing script does: nothing is applied under the new name, nothing removed.
    const renaming = "function ReviseReplica(obj, desiredReplica)\n  obj.spec.fleet.count = desiredReplica\n  obj.metadata.name = obj.metadata.name .. '-renamed'\n  return obj\nend";
    await apply(fleet.control, JSON.stringify(customization(10, undefined, renaming)));
    const said = await eventually("the binding says ReviseReplica returned another object", bindings, (b) => JSON.stringify(b.status ?? {}).includes("ReviseReplica: the script returned Gizmo/g-renamed"));
    assert.deepEqual(said.spec.clusters.map((c) => `${c.name}=${c.replicas}`), ["member1=3", "member2=3"]);
    await new Promise((r) => setTimeout(r, 3_000)); // room for a Work that should not come
    for (const m of [m1, m2]) {
      assert.equal(await getJson(m, [`gizmos.${GROUP}`, "-n", GIZMOS, "g-renamed"]), undefined, `${m.name} has no Gizmo under the script's name`);
      assert.equal((await getJson<GizmoJson>(m, [`gizmos.${GROUP}`, "-n", GIZMOS, "g"]))?.metadata.uid, copies.get(m.name)?.metadata.uid, `${m.name} keeps its Gizmo`);
    }
  });

  it("runs Retain, ReflectStatus and InterpretHealth in the agents: judged, reflected, retained, kept across an agent restart without a resend, and a failure said", async () => {
    const [m1, m2] = fleet.members as [Cluster, Cluster];
    const SPROCKETS = "sprockets";
    await kubectl(fleet.control, ["create", "namespace", SPROCKETS]);
    const sprocketCrd = { ...crd, metadata: { name: `sprockets.${GROUP}` }, spec: { ...crd.spec, names: { plural: "sprockets", singular: "sprocket", kind: "Sprocket" } } };
    await apply(fleet.control, JSON.stringify(sprocketCrd));
    await kubectl(fleet.control, ["wait", "--for=condition=Established", `crd/sprockets.${GROUP}`, "--timeout=60s"]);
    await apply(
      fleet.control,
      JSON.stringify({
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "ClusterPropagationPolicy",
        metadata: { name: "sprocket-crd" },
        spec: { resourceSelectors: [{ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name: `sprockets.${GROUP}` }] },
      }),
    );
    const health = (script: string) => ({
      apiVersion: "flotilla.dev/v1alpha1",
      kind: "ResourceInterpreterCustomization",
      metadata: { name: "sprocket" },
      spec: {
        target: { apiVersion: `${GROUP}/v1`, kind: "Sprocket" },
        customizations: {
          healthInterpretation: { luaScript: script },
          statusReflection: { luaScript: "function ReflectStatus(observedObj)\n  if observedObj.status == nil then\n    return {}\n  end\n  return { phase = observedObj.status.phase }\nend" },
          retention: { luaScript: "function Retain(desiredObj, observedObj)\n  if observedObj.spec.paused ~= nil then\n    desiredObj.spec.paused = observedObj.spec.paused\n  end\n  return desiredObj\nend" },
        },
      },
    });
    const running = "function InterpretHealth(observedObj)\n  return observedObj.status ~= nil and observedObj.status.phase == 'Running'\nend";
    await apply(fleet.control, JSON.stringify(health(running)));
    const sprocket = (size: number) => ({ apiVersion: `${GROUP}/v1`, kind: "Sprocket", metadata: { name: "s", namespace: SPROCKETS }, spec: { size, paused: false } });
    await apply(fleet.control, JSON.stringify(sprocket(1)));
    await apply(
      fleet.control,
      JSON.stringify({
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "PropagationPolicy",
        metadata: { name: "s", namespace: SPROCKETS },
        spec: { resourceSelectors: [{ apiVersion: `${GROUP}/v1`, kind: "Sprocket", name: "s" }], placement: { clusterAffinity: { clusterNames: ["member1", "member2"] } } },
      }),
    );
    type Item = NonNullable<NonNullable<BindingJson["status"]>["aggregatedStatus"]>[number] & { status?: Record<string, unknown> };
    const binding = async () => (await getJson<{ items: BindingJson[] }>(fleet.control, ["rb", "-n", SPROCKETS]))?.items[0];
    const items = (b: BindingJson) => (b.status?.aggregatedStatus ?? []) as Item[];
    // No status yet: the script says not healthy, in both members.
    await eventually("both copies judged Unhealthy by the script", binding, (b) => items(b).length === 2 && items(b).every((i) => i.health === "Unhealthy" && i.applied === true));

    // The members' operator reports; only the phase is reflected (with the generation), and the script judges it Healthy.
    for (const m of [m1, m2]) {
      await kubectl(m, ["patch", `sprockets.${GROUP}`, "s", "-n", SPROCKETS, "--subresource=status", "--type=merge", "-p", JSON.stringify({ status: { phase: "Running", noise: "left out" } })]);
    }
    const judged = await eventually("both copies Healthy with only the phase reflected", binding, (b) => items(b).length === 2 && items(b).every((i) => i.health === "Healthy" && i.status?.phase === "Running"));
    for (const i of items(judged)) assert.deepEqual(Object.keys(i.status ?? {}).sort(), ["generation", "phase"], `${i.clusterName} reports what ReflectStatus picked`);

    // member1's owner pauses its copy: Retain keeps that through the next template change, member2 follows the template.
    await kubectl(m1, ["patch", `sprockets.${GROUP}`, "s", "-n", SPROCKETS, "--type=merge", "-p", JSON.stringify({ spec: { paused: true } })]);
    await apply(fleet.control, JSON.stringify(sprocket(2)));
    type SprocketJson = { metadata: { uid: string }; spec: { size: number; paused: boolean } };
    const copy = (m: Cluster) => getJson<SprocketJson>(m, [`sprockets.${GROUP}`, "-n", SPROCKETS, "s"]);
    await eventually("member2 at size 2, not paused", () => copy(m2), (x) => x.spec.size === 2 && x.spec.paused === false);
    const kept = await eventually("member1 at size 2, still paused", () => copy(m1), (x) => x.spec.size === 2);
    assert.equal(kept.spec.paused, true, "Retain kept the member's paused");

    // A restarted agent states the set's hash in its Hello: it is not sent again, and it judges as before.
    const agent = flotilla.agents.get("member1");
    assert.ok(agent !== undefined);
    await agent.process.restart();
    const metrics = await eventually("member1's restarted agent synced", () => flotilla.agentMetrics("member1"), (m) => m.flotilla_agent_connected === 1);
    assert.equal(metrics.flotilla_agent_customizations, 1, "the set kept across the restart");
    assert.equal(metrics.flotilla_agent_customization_sets_received_total ?? 0, 0, "the unchanged set was not sent again");
    await kubectl(m1, ["patch", `sprockets.${GROUP}`, "s", "-n", SPROCKETS, "--subresource=status", "--type=merge", "-p", JSON.stringify({ status: { phase: "Stopped" } })]);
    await eventually("member1 judged Unhealthy after the restart", binding, (b) => items(b).find((i) => i.clusterName === "member1")?.health === "Unhealthy");

    // A failing InterpretHealth: said on the binding, as the agent's report; nothing removed.
    await apply(fleet.control, JSON.stringify(health("function InterpretHealth(observedObj)\n  return observedObj.status.missing.phase == 'Running'\nend")));
    const failed = await eventually("InterpreterFailed from the agents", binding, (b) => items(b).length === 2 && items(b).every((i) => i.reason === "InterpreterFailed"));
    assert.match(condition(failed, "Propagation")?.message ?? "", /member1: InterpreterFailed .*InterpretHealth: .*luaScript:2: /);
    assert.equal((await flotilla.agentMetrics("member1")).flotilla_agent_customization_sets_received_total, 1, "the edited set was sent once");
    for (const m of [m1, m2]) assert.ok((await copy(m)) !== undefined, `${m.name} keeps its Sprocket`);
    assert.equal((await copy(m1))?.metadata.uid, kept.metadata.uid);
    await apply(fleet.control, JSON.stringify(health(running)));
    await eventually("the fixed script clears it", binding, (b) => items(b).length === 2 && items(b).every((i) => (i.reason ?? "") === "") && condition(b, "Propagation")?.status === "True");
  });
});
