// Issue 22 on real members, the parts that need no metrics: a CronFederatedHPA rule sets a
// Divided workload's replicas on time (the members get their shares) and records it; a
// FederatedHPA holds its target within its bounds and says, on its own status, that it receives no
// metrics (nothing scales on missing data); a CronFederatedHPA rule on a FederatedHPA moves its
// bounds, and the target follows.
//
// A cron rule fires only on a minute (schedules have no seconds), so each of the two cases waits up
// to a minute for one; the two run at once, so that those waits overlap instead of adding up.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { SHORT_AUTOSCALING_PERIODS } from "./fleet-autoscaling.fixtures.ts";
import { apply, type BindingJson, deploymentJson, eventually, getJson, kubectl } from "./helpers.ts";

const NS = "autoscale";

interface DeploymentJson {
  metadata: { uid: string };
  spec: { replicas: number };
}
interface ExecutionJson {
  scheduleTime: string;
  executionTime: string;
  appliedReplicas?: number;
  appliedMinReplicas?: number;
}
interface CronJson {
  status?: { executionHistories?: { ruleName: string; nextExecutionTime?: string; successfulExecutions?: ExecutionJson[]; failedExecutions?: unknown[] }[] };
}
interface FhpaJson {
  spec: { minReplicas?: number; maxReplicas: number };
  status?: { currentReplicas?: number; desiredReplicas?: number; conditions?: { type: string; status: string; reason: string; message: string }[] };
}

interface EventJson {
  type: string;
  reason: string;
  message: string;
}

const divided = (name: string) =>
  JSON.stringify({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "PropagationPolicy",
    metadata: { name, namespace: NS },
    spec: {
      resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name }],
      placement: { clusterAffinity: { clusterNames: ["member1", "member2"] }, replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted" } },
    },
  });

// The cases use their own Deployments, policies and autoscalers (web, api), so they may run at once.
describe("fleet autoscaling without metrics", { concurrency: 2 }, () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  before(async () => {
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet, SHORT_AUTOSCALING_PERIODS);
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  const split = async (name: string) => (await getJson<BindingJson>(fleet.control, ["rb", "-n", NS, `${name}-deployment`]))?.spec.clusters.map((c) => `${c.name}=${c.replicas}`).join(" ");

  it("a CronFederatedHPA rule sets a Divided workload's replicas at its minute, the members get their shares, and the run is recorded", async () => {
    await apply(fleet.control, deploymentJson("web", NS, 2));
    await apply(fleet.control, divided("web"));
    await eventually("web divided 1 + 1", () => split("web"), (s) => s === "member1=1 member2=1");
    await apply(
      fleet.control,
      JSON.stringify({
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "CronFederatedHPA",
        metadata: { name: "web", namespace: NS },
        spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, rules: [{ name: "every-minute", schedule: "* * * * *", targetReplicas: 4 }] },
      }),
    );
    const cron = () => getJson<CronJson>(fleet.control, ["cronfederatedhpa", "-n", NS, "web"]);
    const planned = await eventually("the rule's next execution time", cron, (c) => c.status?.executionHistories?.[0]?.nextExecutionTime !== undefined);
    const next = Date.parse(planned.status?.executionHistories?.[0]?.nextExecutionTime ?? "");
    assert.equal(new Date(next).getUTCSeconds(), 0, "on the minute");
    const ran = await eventually("the rule ran", cron, (c) => (c.status?.executionHistories?.[0]?.successfulExecutions ?? []).length > 0, 120_000);
    const done = ran.status?.executionHistories?.[0]?.successfulExecutions?.[0];
    assert.equal(done?.appliedReplicas, 4);
    assert.equal(Date.parse(done?.scheduleTime ?? ""), next);
    assert.ok(Date.parse(done?.executionTime ?? "") - next < 15_000, `ran ${Date.parse(done?.executionTime ?? "") - next} ms after its time`);
    assert.equal((await getJson<DeploymentJson>(fleet.control, ["deploy", "-n", NS, "web"]))?.spec.replicas, 4);
    await eventually("web divided 2 + 2", () => split("web"), (s) => s === "member1=2 member2=2");
    for (const m of fleet.members as Cluster[]) await eventually(`web at 2 in ${m.name}`, () => getJson<DeploymentJson>(m, ["deploy", "-n", NS, "web"]), (d) => d.spec.replicas === 2);
  });

  it("a FederatedHPA holds its target within its bounds and says it receives no metrics; a cron rule on it moves its bounds and the target follows", async () => {
    await apply(fleet.control, deploymentJson("api", NS, 2));
    await apply(fleet.control, divided("api"));
    await apply(
      fleet.control,
      JSON.stringify({
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "FederatedHPA",
        metadata: { name: "api", namespace: NS },
        spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "api" }, minReplicas: 3, maxReplicas: 6, metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } } }] },
      }),
    );
    const fhpa = () => getJson<FhpaJson>(fleet.control, ["federatedhpa", "-n", NS, "api"]);
    await eventually("api raised to minReplicas 3", () => getJson<DeploymentJson>(fleet.control, ["deploy", "-n", NS, "api"]), (d) => d.spec.replicas === 3);
    const idle = await eventually("the FederatedHPA says it has no metrics", fhpa, (f) => f.status?.conditions?.some((c) => c.type === "ScalingActive" && c.status === "False") === true, 60_000);
    assert.equal(idle.status?.currentReplicas, 3);
    assert.match(idle.status?.conditions?.find((c) => c.type === "ScalingActive")?.message ?? "", /unable to (get|compute)/);
    assert.equal((await getJson<DeploymentJson>(fleet.control, ["deploy", "-n", NS, "api"]))?.spec.replicas, 3, "no scale on missing data");
    // kube-controller-manager's Events, on the FederatedHPA: the rescale into its bounds, and the metric it cannot read.
    const events = async () => (await getJson<{ items: EventJson[] }>(fleet.control, ["events", "-n", NS, "--field-selector", "involvedObject.kind=FederatedHPA,involvedObject.name=api"]))?.items ?? [];
    const seen = await eventually("SuccessfulRescale and FailedGetResourceMetric Events on the FederatedHPA", events, (l) => l.some((e) => e.reason === "SuccessfulRescale") && l.some((e) => e.reason === "FailedGetResourceMetric"));
    assert.deepEqual(seen.filter((e) => e.reason === "SuccessfulRescale").map((e) => `${e.type} ${e.message}`), ["Normal New size: 3; reason: Current number of replicas below Spec.MinReplicas"]);
    assert.equal(seen.find((e) => e.reason === "FailedGetResourceMetric")?.type, "Warning");
    assert.ok(seen.filter((e) => e.reason === "FailedGetResourceMetric").length === 1, "a standing failure is one Event");

    await apply(
      fleet.control,
      JSON.stringify({
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "CronFederatedHPA",
        metadata: { name: "api-bounds", namespace: NS },
        spec: { scaleTargetRef: { apiVersion: "flotilla.dev/v1alpha1", kind: "FederatedHPA", name: "api" }, rules: [{ name: "raise", schedule: "* * * * *", targetMinReplicas: 5, targetMaxReplicas: 6 }] },
      }),
    );
    await eventually("the cron rule raised the FederatedHPA's minReplicas", fhpa, (f) => f.spec.minReplicas === 5, 120_000);
    await eventually("api raised to 5", () => getJson<DeploymentJson>(fleet.control, ["deploy", "-n", NS, "api"]), (d) => d.spec.replicas === 5, 60_000);
    await eventually("api divided over both members", () => split("api"), (s) => s === "member1=3 member2=2" || s === "member1=2 member2=3");
  });
});
