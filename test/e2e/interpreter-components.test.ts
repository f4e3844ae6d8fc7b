// Issue 21's componentResource on real members: a CRD of our own, a FlinkLike with a job manager
// and task managers of different sizes, is taught to Flotilla by a ResourceInterpreterCustomization
// whose GetComponents returns two components. Its binding records them (spec.components, as
// Karmada's), and it goes to clusters as whole sets, never divided: only a member whose agent
// reports room for one complete set (Σ replicas × request) is a target. member1 is made nearly
// full by pods run on it directly (its agent reports them as allocated), so a 10-CPU set fits only
// member2; Duplicated puts a whole copy on each member with room, Divided puts the one set on
// one member. A GetComponents script that fails says InterpreterFailed on the bindings, which keep
// their clusters, and the members keep their copies.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { parseQuantity } from "../../shared/quantity.ts";
import { apply, type BindingJson, condition, eventually, getJson, kubectl, sleep } from "./helpers.ts";

const NS = "flink";
const GROUP = "components.flotilla.dev";
const RESOURCE = `flinklikes.${GROUP}`;

const crd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: RESOURCE },
  spec: {
    group: GROUP,
    scope: "Namespaced",
    names: { plural: "flinklikes", singular: "flinklike", kind: "FlinkLike" },
    versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } } } }],
  },
};

const GET_COMPONENTS = `function GetComponents(obj)
  local function component(name, c)
    return { name = name, replicas = c.replicas, replicaRequirements = { resourceRequest = { cpu = c.cpu, memory = c.memory } } }
  end
  return { component("jobmanager", obj.spec.jobManager), component("taskmanager", obj.spec.taskManager) }
end`;

const customization = (script: string) => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceInterpreterCustomization",
  metadata: { name: "flinklike" },
  spec: { target: { apiVersion: `${GROUP}/v1`, kind: "FlinkLike" }, customizations: { componentResource: { luaScript: script } } },
});

interface Part {
  replicas: number;
  cpu: string;
  memory: string;
}
const flinkLike = (name: string, jobManager: Part, taskManager: Part) => ({ apiVersion: `${GROUP}/v1`, kind: "FlinkLike", metadata: { name, namespace: NS }, spec: { jobManager, taskManager } });

const policy = (name: string, replicaScheduling?: object) => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "PropagationPolicy",
  metadata: { name, namespace: NS },
  spec: {
    resourceSelectors: [{ apiVersion: `${GROUP}/v1`, kind: "FlinkLike", name }],
    placement: { clusterAffinity: { clusterNames: ["member1", "member2"] }, ...(replicaScheduling ? { replicaScheduling } : {}) },
  },
});

interface FlinkJson {
  metadata: { uid: string };
  spec: { jobManager: Part; taskManager: Part };
}
type FlinkBinding = BindingJson & { spec: { resource: { name: string }; replicas?: number; components?: { name: string; replicas: number; replicaRequirements?: { resourceRequest?: Record<string, string> } }[] } };

describe("multi-component workloads (componentResource) on real members", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let m1: Cluster;
  let m2: Cluster;
  const binding = async (name: string) => (await getJson<{ items: FlinkBinding[] }>(fleet.control, ["rb", "-n", NS]))?.items.find((b) => b.spec.resource.name === name);
  const targets = (b: FlinkBinding) => b.spec.clusters.map((c) => `${c.name}=${c.replicas ?? "-"}`).join(" ");

  before(async () => {
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet);
    [m1, m2] = fleet.members as [Cluster, Cluster];
    await kubectl(fleet.control, ["create", "namespace", NS]);
    // member1 nearly full: two 14-CPU pods on its two 16-CPU kwok nodes leave 4 of 32 CPUs free.
    await apply(
      m1,
      JSON.stringify({
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "ballast", namespace: "default" },
        spec: { replicas: 2, selector: { matchLabels: { app: "ballast" } }, template: { metadata: { labels: { app: "ballast" } }, spec: { containers: [{ name: "c", image: "busybox", resources: { requests: { cpu: "14" } } }] } } },
      }),
    );
    await eventually(
      "member1's agent reports the 28 CPUs allocated",
      () => getJson<{ status?: { resourceSummary?: { allocated?: Record<string, string> } } }>(fleet.control, ["cluster", "member1"]),
      (c) => parseQuantity(c.status?.resourceSummary?.allocated?.cpu ?? "0") >= 28,
      90_000,
    );
    await apply(fleet.control, JSON.stringify(crd));
    await kubectl(fleet.control, ["wait", "--for=condition=Established", `crd/${RESOURCE}`, "--timeout=60s"]);
    await apply(
      fleet.control,
      JSON.stringify({
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "ClusterPropagationPolicy",
        metadata: { name: "flinklike-crd" },
        spec: { resourceSelectors: [{ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name: RESOURCE }] },
      }),
    );
    await apply(fleet.control, JSON.stringify(customization(GET_COMPONENTS)));
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("Duplicated: the binding records both components, and only the member with room for a complete set gets a whole copy", async () => {
    // One set: 1 × 2 CPU + 2 × 4 CPU = 10 CPUs. member1 has 4 free, member2 32.
    await apply(fleet.control, JSON.stringify(flinkLike("stream", { replicas: 1, cpu: "2", memory: "2Gi" }, { replicas: 2, cpu: "4", memory: "4Gi" })));
    await apply(fleet.control, JSON.stringify(policy("stream")));
    const b = await eventually("stream placed on member2 alone", () => binding("stream"), (x) => targets(x) === "member2=-" && x.spec.components !== undefined);
    assert.deepEqual(b.spec.components, [
      { name: "jobmanager", replicas: 1, replicaRequirements: { resourceRequest: { cpu: "2", memory: "2Gi" } } },
      { name: "taskmanager", replicas: 2, replicaRequirements: { resourceRequest: { cpu: "4", memory: "4Gi" } } },
    ]);
    const copy = await eventually("the whole FlinkLike in member2", () => getJson<FlinkJson>(m2, [RESOURCE, "-n", NS, "stream"]), () => true);
    assert.deepEqual([copy.spec.jobManager.replicas, copy.spec.taskManager.replicas], [1, 2], "not divided: every component as the template says");
    await eventually("no copy in member1 (no room for a complete set)", async () => ((await getJson(m1, [RESOURCE, "-n", NS, "stream"])) === undefined ? true : undefined), () => true);
    assert.equal(condition(await eventually("Scheduled", () => binding("stream"), (x) => condition(x, "Scheduled") !== undefined), "Scheduled")?.status, "True");
  });

  it("Divided: a complete set is never split, so it goes to one member, the one that holds the most sets", async () => {
    // One set: 2 CPUs. member1 holds 2 sets, member2 16.
    await apply(fleet.control, JSON.stringify(flinkLike("batch", { replicas: 1, cpu: "1", memory: "1Gi" }, { replicas: 1, cpu: "1", memory: "1Gi" })));
    await apply(fleet.control, JSON.stringify(policy("batch", { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { dynamicWeight: "AvailableReplicas" } })));
    await eventually("batch on member2 alone, no replica count", () => binding("batch"), (x) => targets(x) === "member2=-" && (x.spec.components?.length ?? 0) === 2);
    const copy = await eventually("the whole FlinkLike in member2", () => getJson<FlinkJson>(m2, [RESOURCE, "-n", NS, "batch"]), () => true);
    assert.deepEqual([copy.spec.jobManager.replicas, copy.spec.taskManager.replicas], [1, 1]);
    assert.equal(await getJson(m1, [RESOURCE, "-n", NS, "batch"]), undefined, "one set, one member");
  });

  it("a GetComponents script that fails says InterpreterFailed on the bindings, which keep their clusters; the members keep their copies", async () => {
    const before = await getJson<FlinkJson>(m2, [RESOURCE, "-n", NS, "stream"]);
    assert.ok(before !== undefined);
    await apply(fleet.control, JSON.stringify(customization(GET_COMPONENTS.replace("obj.spec.taskManager", "obj.spec.missing.taskManager"))));
    for (const name of ["stream", "batch"]) {
      const failed = await eventually(`InterpreterFailed on ${name}'s binding`, () => binding(name), (b) => condition(b, "Scheduled")?.reason === "InterpreterFailed");
      assert.equal(condition(failed, "Scheduled")?.status, "False");
      assert.match(condition(failed, "Scheduled")?.message ?? "", /^InterpretComponent: .*luaScript:5: .*missing/);
      assert.equal(targets(failed), "member2=-", `${name}'s binding keeps its cluster`);
    }
    await sleep(3_000);
    const after = await getJson<FlinkJson>(m2, [RESOURCE, "-n", NS, "stream"]);
    assert.equal(after?.metadata.uid, before.metadata.uid, "member2 keeps its FlinkLike");
    assert.ok((await getJson(m2, [RESOURCE, "-n", NS, "batch"])) !== undefined, "and the other");
  });
});
