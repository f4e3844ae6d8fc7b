// Issue 21 on real members: the native interpreters divide, revise and sum kinds that only had
// spec.replicas read before. A Divided Job (parallelism 4, completions 8) runs 2 + 2 with
// completions 4 + 4, and its template reports the fleet's succeeded 8 and Complete, as
// `kubectl get job` on the control cluster shows. The members' Jobs complete through kwok's
// pod-complete stage and their own job controllers.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type BindingJson, eventually, getJson, kubectl } from "./helpers.ts";

const NS = "interpret";

interface JobJson {
  metadata: { uid: string };
  spec: { parallelism?: number; completions?: number };
  status?: { succeeded?: number; active?: number; failed?: number; startTime?: string; completionTime?: string; conditions?: { type: string; status: string }[] };
}

describe("native interpreters on real members", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  before(async () => {
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet);
    await kubectl(fleet.control, ["create", "namespace", NS]);
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
});
