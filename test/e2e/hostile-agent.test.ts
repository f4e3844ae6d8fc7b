// DESIGN §7 on real clusters over real mTLS: an agent holding a member's genuine certificate that
// lies, floods or sends garbage cannot touch another cluster's bindings, cannot crash or stall the
// control plane, and cannot stop the other agents' Works from being applied and reported.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { status as GrpcStatus } from "@grpc/grpc-js";
import fc from "fast-check";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { agentMessage } from "../../control-plane/hub/agent-message.fixtures.ts";
import { apply, type BindingJson, clusterItem, deploymentJson, eventually, getJson, kubectl, placementPolicyJson } from "./helpers.ts";
import { forgedReport, helloAs, hostileStream, type HostileStream } from "./hostile-agent.ts";

const NS = "hostile";
const keyOf = (name: string) => `apps/v1/Deployment/${NS}/${name}`;
const rejected = (reason: string) => `flotilla_hub_rejected_reports_total{reason="${reason}"}`;

describe("a hostile agent with a member's real certificate", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let m1: Cluster;
  const streams: HostileStream[] = [];
  const hostile = () => {
    const s = hostileStream({ hubPort: flotilla.hubPort, certsDir: flotilla.certsDir, cluster: "member2" });
    streams.push(s);
    return s;
  };

  before(async () => {
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet);
    m1 = fleet.members[0] as Cluster;
    await kubectl(fleet.control, ["create", "namespace", NS]);
    // member2's own agent goes; a hostile client takes its place, with its certificate.
    await flotilla.stopAgent("member2");
  });
  after(async () => {
    for (const s of streams) s.close();
    await flotilla?.stop();
    await fleet?.stop();
  });

  const binding = (name: string) => getJson<BindingJson>(fleet.control, ["rb", "-n", NS, `${name}-deployment`]);
  const deployOnMember1 = (name: string, replicas: number) =>
    eventually(`${name} applied in member1 and reported`, () => binding(name), (b) => clusterItem(b, "member1")?.applied === true && clusterItem(b, "member1")?.reason === "", 90_000).then(() =>
      eventually(`${name} in member1`, () => getJson<{ spec: { replicas: number } }>(m1, ["deploy", "-n", NS, name]), (d) => d.spec.replicas === replicas),
    );

  it("cannot hold another cluster's binding with a forged WaitingForRemoval: the deletion completes", async () => {
    await apply(fleet.control, deploymentJson("victim", NS, 1));
    await apply(fleet.control, placementPolicyJson("victim", NS, ["member1"]));
    await deployOnMember1("victim", 1);

    const h = hostile();
    await h.send(helloAs("member2"));
    await eventually("the hostile stream synced", async () => h.received, (r) => r.some((m) => m.kind?.$case === "syncDone"), 30_000);
    // The forged report: member2 "still holds" victim, which the hub never sent it.
    const before = (await flotilla.controlPlaneMetrics())[rejected("NotSentToCluster")] ?? 0;
    for (let i = 0; i < 3; i++) await h.send(forgedReport(keyOf("victim")));
    // Either the hub dropped it (counted), or (the old code) it reached the binding.
    await eventually(
      "the forged report was handled",
      async () => ({ dropped: ((await flotilla.controlPlaneMetrics())[rejected("NotSentToCluster")] ?? 0) > before, b: await binding("victim") }),
      (x) => x.dropped || (x.b !== undefined && clusterItem(x.b, "member2") !== undefined),
      30_000,
    );
    assert.equal(clusterItem((await binding("victim")) as BindingJson, "member2"), undefined, "member2 never shows on victim's binding");

    await kubectl(fleet.control, ["delete", "deploy", "-n", NS, "victim", "--wait=false"]);
    await eventually("victim's binding removed (its finalizer released)", async () => ((await binding("victim")) === undefined ? true : undefined), (x) => x, 60_000);
    await eventually("victim gone from member1", async () => ((await getJson(m1, ["deploy", "-n", NS, "victim"])) === undefined ? true : undefined), (x) => x, 60_000);
    assert.ok(((await flotilla.controlPlaneMetrics())[rejected("NotSentToCluster")] ?? 0) >= before + 3, "each forged report counted");
    assert.equal(h.isEnded(), false, "a lie is dropped, not a reason to cut the stream (the cluster's own reports keep flowing)");
  });

  it("cannot claim absurd capacity: the claim is left out and named on its Cluster", async () => {
    const h = hostile();
    await h.send(helloAs("member2"));
    const hb = { kubernetesVersion: "v1.33.0", agentVersion: "hostile", nodeSummary: { total: 1, ready: 1 }, resourceSummary: { allocatable: { cpu: "1e30", memory: "-8Gi", pods: "110" }, allocated: {} }, apiEnablements: ["apps/v1"] };
    await h.send({ kind: { $case: "heartbeat", value: hb } });
    type ClusterJson = { status?: { conditions?: { type: string; status: string; message: string }[]; resourceSummary?: { allocatable?: Record<string, string> } } };
    const c = await eventually("member2 names its insane claims", () => getJson<ClusterJson>(fleet.control, ["cluster", "member2"]), (x) => x.status?.conditions?.some((k) => k.type === "HeartbeatClaimsValid" && k.status === "False") === true, 30_000);
    const cond = c.status?.conditions?.find((k) => k.type === "HeartbeatClaimsValid");
    assert.match(cond?.message ?? "", /cpu: "1e30" is above/);
    assert.match(cond?.message ?? "", /memory: "-8Gi" is negative/);
    assert.deepEqual(c.status?.resourceSummary?.allocatable, { pods: "110" }, "only the sane claim counts");

    // Nothing sane left at all: the Cluster still takes the heartbeat (no summary), and says why.
    await h.send({ kind: { $case: "heartbeat", value: { ...hb, kubernetesVersion: "v1.33.1", resourceSummary: { allocatable: { cpu: "-1" }, allocated: {} } } } });
    const bare = await eventually("member2's status written without a summary", () => getJson<ClusterJson & { status?: { kubernetesVersion?: string } }>(fleet.control, ["cluster", "member2"]), (x) => x.status?.kubernetesVersion === "v1.33.1", 30_000);
    assert.equal(bare.status?.resourceSummary, undefined);
    assert.match(bare.status?.conditions?.find((k) => k.type === "HeartbeatClaimsValid")?.message ?? "", /cpu: "-1" is negative/);
  });

  it("a message over the receive limit ends only that stream", async () => {
    const h = hostile();
    await h.send(helloAs("member2"));
    const huge = forgedReport(keyOf("x"));
    if (huge.kind?.$case === "workStatus") huge.kind.value.message = "x".repeat(5 * 1024 * 1024);
    await h.send(huge);
    const e = await h.ended;
    assert.equal(e.code, GrpcStatus.RESOURCE_EXHAUSTED, `ended with ${JSON.stringify(e)}`);
  });

  it("fuzzed garbage (fast-check, 200 runs) leaves the control plane up and member1 served", async () => {
    await apply(fleet.control, deploymentJson("bystander", NS, 1));
    await apply(fleet.control, placementPolicyJson("bystander", NS, ["member1"]));
    await deployOnMember1("bystander", 1);
    const keys = [keyOf("bystander"), keyOf("victim"), keyOf("nothing")];
    const endings = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(agentMessage(keys), { minLength: 1, maxLength: 6 }), async (hello, messages) => {
        const h = hostile();
        if (hello) await h.send(helloAs("member2"));
        for (const m of messages) await h.send(m);
        await Promise.race([h.ended, new Promise((r) => setTimeout(r, 30))]);
        h.close();
        const e = h.isEnded() ? await h.ended : {};
        const code = e.code === undefined ? "open" : GrpcStatus[e.code] ?? String(e.code);
        endings.set(code, (endings.get(code) ?? 0) + 1);
        // Whatever it sent, the hub answered with a status (or kept the stream open): never INTERNAL or UNKNOWN.
        assert.ok(e.code !== GrpcStatus.INTERNAL && e.code !== GrpcStatus.UNKNOWN, `the hub failed on ${JSON.stringify(messages).slice(0, 300)}: ${JSON.stringify(e)}`);
      }),
      { numRuns: 200, seed: 11 },
    );
    console.log(`hostile streams ended: ${JSON.stringify(Object.fromEntries(endings))}`);

    const health = await fetch(`http://127.0.0.1:${flotilla.controlPlaneHealthPort}/healthz`);
    assert.equal(health.status, 200, "/healthz");
    assert.ok(flotilla.controlPlane.running, "the control plane still runs");
    const log = await readFile(flotilla.controlPlane.logFile, "utf8");
    assert.doesNotMatch(log, /unhandled|uncaught|"level":60/i, "no unhandled rejection, uncaught exception or fatal log");

    // member1 is still served: a template change is applied and reported.
    const hashOf = (x: BindingJson) => (clusterItem(x, "member1") as { observedHash?: string } | undefined)?.observedHash;
    const hash0 = hashOf((await binding("bystander")) as BindingJson);
    await apply(fleet.control, deploymentJson("bystander", NS, 2));
    await eventually("bystander updated in member1", () => getJson<{ spec: { replicas: number } }>(m1, ["deploy", "-n", NS, "bystander"]), (d) => d.spec.replicas === 2, 60_000);
    const b = await eventually("bystander's new version reported", () => binding("bystander"), (x) => clusterItem(x, "member1")?.applied === true && hashOf(x) !== hash0, 60_000);
    assert.equal(clusterItem(b, "member2"), undefined, "nothing of member2 on member1's binding");
    assert.deepEqual(b.spec.clusters.map((c) => c.name), ["member1"]);
  });
});
