// Issue 22 with real metrics: two members run metrics-server and kwok reports the CPU a test sets
// for the workload's pods. A FederatedHPA over a Divided Deployment (2 pods, 500m requests) sees
// 90% against its 50% target through the agents' summaries and scales the template to its
// maxReplicas 4 (2 + 2 in the members) and says it is capped there; the load removed (10%), it scales down to its minReplicas
// 2 (its scale-down window set to 0 s for the test), and its status says so at each step.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { memberKubeconfig } from "./member-api.fixtures.ts";
import { setWorkloadUsage } from "../env/usage.ts";
import { cpuDeployment, cpuFederatedHpa, dividedPolicy, SHORT_AUTOSCALING_PERIODS } from "./fleet-autoscaling.fixtures.ts";
import { join } from "node:path";
import { ensureBinaries } from "../env/binaries.ts";
import { goCommandEnv } from "../env/managed-process.ts";
import { apply, type BindingJson, eventually, getJson, kubectl, runCommand } from "./helpers.ts";

const NS = "fleet-hpa";
const LABELS = { app: "cpu" };

interface DeploymentJson {
  spec: { replicas: number };
}
interface FhpaJson {
  status?: {
    currentReplicas?: number;
    desiredReplicas?: number;
    lastScaleTime?: string;
    currentMetrics?: { type: string; resource?: { name: string; current: { averageUtilization?: number } } }[];
    conditions?: { type: string; status: string; reason: string; message: string }[];
  };
}

describe("a FederatedHPA on real metrics", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  before(async () => {
    fleet = await startFleet({ members: 2, metrics: true });
    flotilla = await startFlotilla(fleet, { ...SHORT_AUTOSCALING_PERIODS, memberApi: true });
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  const replicas = async () => (await getJson<DeploymentJson>(fleet.control, ["deploy", "-n", NS, "cpu"]))?.spec.replicas;
  const split = async () => (await getJson<BindingJson>(fleet.control, ["rb", "-n", NS, "cpu-deployment"]))?.spec.clusters.map((c) => `${c.name}=${c.replicas}`).join(" ");
  const fhpa = () => getJson<FhpaJson>(fleet.control, ["federatedhpa", "-n", NS, "cpu"]);
  const usage = async (cpu: string) => {
    for (const m of fleet.members as Cluster[]) await setWorkloadUsage(m.kubeConfig(), NS, LABELS, { cpu });
  };

  it("scales up on 90% CPU against a 50% target, and down when the load goes", async () => {
    await usage("450m");
    await apply(fleet.control, cpuDeployment(NS, "cpu", LABELS, 2));
    await apply(fleet.control, dividedPolicy(NS, "cpu"));
    await eventually("cpu divided 1 + 1", split, (s) => s === "member1=1 member2=1");
    await apply(fleet.control, cpuFederatedHpa(NS, "cpu", 2, 4));

    const up = await eventually("the template scaled to maxReplicas 4", replicas, (r) => r === 4, 240_000);
    assert.equal(up, 4);
    await eventually("cpu divided 2 + 2", split, (s) => s === "member1=2 member2=2");
    const scaled = await eventually("the FederatedHPA's status after the scale-up", fhpa, (f) => f.status?.desiredReplicas === 4 && f.status.lastScaleTime !== undefined);
    const utilization = scaled.status?.currentMetrics?.find((m) => m.resource?.name === "cpu")?.resource?.current.averageUtilization ?? 0;
    assert.ok(utilization >= 80 && utilization <= 100, `the fleet's CPU utilization read ${utilization}%`);
    // 2 pods at 90% ask for exactly 4, within range; 4 pods at 90% ask for 8: capped at 4, and said.
    const capped = await eventually("ScalingLimited TooManyReplicas once all 4 pods report", fhpa, (f) => f.status?.conditions?.some((c) => c.type === "ScalingLimited" && c.reason === "TooManyReplicas") === true, 180_000);
    assert.equal(capped.status?.desiredReplicas, 4);
    assert.equal(await replicas(), 4, "never past maxReplicas");

    await usage("50m");
    await eventually("the template scaled down to minReplicas 2", replicas, (r) => r === 2, 240_000);
    await eventually("cpu divided 1 + 1 again", split, (s) => s === "member1=1 member2=1");
    const down = await eventually("the FederatedHPA's status after the scale-down", fhpa, (f) => f.status?.desiredReplicas === 2);
    assert.equal(down.status?.conditions?.find((c) => c.type === "ScalingLimited")?.reason, "TooFewReplicas");
    assert.equal(down.status?.conditions?.find((c) => c.type === "ScalingActive")?.status, "True");
  });

  it("kubectl top through the member API (issue 41) shows what member1's metrics-server serves directly", async () => {
    const m1 = fleet.members[0] as Cluster;
    await kubectl(m1, ["create", "clusterrolebinding", "flotilla-admins", "--clusterrole=cluster-admin", "--group=flotilla:admins"]);
    const kubeconfig = await memberKubeconfig(flotilla, "alice", "admin", "member1");
    const kubectlDir = await ensureBinaries();
    const top = (args: string[]) => runCommand(join(kubectlDir, "kubectl"), [...args, "top", "pods", "-n", NS, "--no-headers"], { env: goCommandEnv() });
    const [through, direct] = await Promise.all([top(["--kubeconfig", kubeconfig]), top(["--kubeconfig", m1.kubeconfigPath])]);
    assert.equal(direct.code, 0, direct.stderr);
    assert.equal(through.code, 0, through.stderr);
    const pods = (out: string) => out.trim().split("\n").map((l) => l.split(/\s+/).slice(0, 2).join(" ")).sort();
    assert.ok(pods(direct.stdout).length > 0);
    assert.deepEqual(pods(through.stdout), pods(direct.stdout));
  });
});
