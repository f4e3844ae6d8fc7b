// Placement on three real members: ordered cluster groups, spread constraints, rescheduling and
// its stability, dependencies that follow a workload, and preserveResourcesOnDeletion.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type BindingJson, condition, eventually, getJson, kubectl } from "./helpers.ts";

const NS = "placement";

interface ObjectJson {
  metadata: { name: string; resourceVersion: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { replicas?: number };
}

type Binding = BindingJson & {
  metadata: { generation: number };
  spec: { requiredBy?: { name: string; clusters?: string[]; resource?: { apiVersion: string; kind: string; namespace?: string; name: string } }[] };
  status?: { schedulerObservedAffinityName?: string };
};

const deployment = (name: string, replicas: number, podSpec: object = {}) =>
  JSON.stringify({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "nginx" }], ...podSpec } },
    },
  });

const policy = (name: string, spec: object) =>
  JSON.stringify({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "PropagationPolicy",
    metadata: { name, namespace: NS },
    spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name }], ...spec },
  });

const targets = (b: BindingJson) => b.spec.clusters.map((c) => (c.replicas === undefined ? c.name : `${c.name}=${c.replicas}`)).join(" ");

describe("Placement: cluster groups, spread, rescheduling, dependencies, preservation", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let m1: Cluster;
  let m2: Cluster;
  let m3: Cluster;
  const binding = (name: string) => () => getJson<Binding>(fleet.control, ["rb", "-n", NS, name]);
  before(async () => {
    fleet = await startFleet({ members: 3 });
    flotilla = await startFlotilla(fleet, {
      clusterFailureThreshold: "4s",
      // A dependency every parent let go is released after 2 s (10 s in production).
      controlPlaneArgs: ["--dependency-release-grace-period=2s"],
      clusterSpecs: {
        member1: { labels: { tier: "gold" }, spec: { region: "eu" } },
        member2: { labels: { tier: "silver" }, spec: { region: "eu" } },
        member3: { labels: { tier: "silver" }, spec: { region: "us" } },
      },
    });
    [m1, m2, m3] = fleet.members as [Cluster, Cluster, Cluster];
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("uses the first cluster group, falls back when it is lost, returns when it is back, and says which in status", async () => {
    await apply(fleet.control, deployment("grouped", 4));
    await apply(
      fleet.control,
      policy("grouped", {
        placement: {
          clusterAffinities: [
            { affinityName: "primary", clusterNames: ["member1"] },
            { affinityName: "backup", clusterNames: ["member2"] },
          ],
          replicaScheduling: { replicaSchedulingType: "Divided" },
        },
      }),
    );
    await eventually("primary in use", binding("grouped-deployment"), (b) => targets(b) === "member1=4" && b.status?.schedulerObservedAffinityName === "primary");
    await eventually("member1 runs 4", () => getJson<ObjectJson>(m1, ["deploy", "-n", NS, "grouped"]), (d) => d.spec?.replicas === 4);

    await flotilla.stopAgent("member1");
    await eventually("backup in use", binding("grouped-deployment"), (b) => targets(b) === "member2=4" && b.status?.schedulerObservedAffinityName === "backup", 30_000);
    await eventually("member2 runs 4", () => getJson<ObjectJson>(m2, ["deploy", "-n", NS, "grouped"]), (d) => d.spec?.replicas === 4);

    await flotilla.startAgent("member1");
    await eventually("primary again", binding("grouped-deployment"), (b) => targets(b) === "member1=4" && b.status?.schedulerObservedAffinityName === "primary", 30_000);
    await eventually("member2 lets go", () => getJson<ObjectJson>(m2, ["deploy", "-n", NS, "grouped"]).then((d) => (d === undefined ? "gone" : undefined)), () => true);
  });

  it("keeps to one region with maxGroups, and says why on the binding when minGroups cannot be met", async () => {
    await apply(fleet.control, deployment("regional", 2));
    await apply(fleet.control, policy("regional", { placement: { spreadConstraints: [{ spreadByField: "region", maxGroups: 1 }] } }));
    // eu has two clusters, us one: the bigger group wins.
    await eventually("eu only", binding("regional-deployment"), (b) => targets(b) === "member1=2 member2=2");

    await apply(fleet.control, deployment("too-spread", 2));
    await apply(fleet.control, policy("too-spread", { placement: { spreadConstraints: [{ spreadByField: "region", minGroups: 3 }] } }));
    const b = await eventually("Scheduled False", binding("too-spread-deployment"), (x) => condition(x, "Scheduled")?.status === "False");
    assert.equal(condition(b, "Scheduled")?.reason, "ComputePlacementFailed");
    assert.match(condition(b, "Scheduled")?.message ?? "", /policy too-spread: spreadConstraints: 2 regions available \(eu, us\), minGroups is 3/);
    assert.equal(targets(b), "", "nothing is placed");
    assert.equal(await getJson(m1, ["deploy", "-n", NS, "too-spread"]), undefined);

    // Relaxing the constraint schedules it: the condition clears.
    await apply(fleet.control, policy("too-spread", { placement: { spreadConstraints: [{ spreadByField: "region", minGroups: 2 }] } }));
    const ok = await eventually("Scheduled True", binding("too-spread-deployment"), (x) => condition(x, "Scheduled")?.status === "True");
    assert.equal(targets(ok), "member1=2 member2=2 member3=2");
  });

  it("reschedules on a replica, policy or cluster label change, and a change elsewhere reshuffles nothing", async () => {
    const gold = (replicaSchedulingType: string) => policy("gold", { placement: { clusterAffinity: { labelSelector: { matchLabels: { tier: "gold" } } }, replicaScheduling: { replicaSchedulingType } } });
    await apply(fleet.control, deployment("gold", 4));
    await apply(fleet.control, gold("Divided"));
    await eventually("member1 only", binding("gold-deployment"), (b) => targets(b) === "member1=4");

    await kubectl(fleet.control, ["label", "cluster", "member3", "tier=gold", "--overwrite"]);
    await eventually("member3 joins the share", binding("gold-deployment"), (b) => targets(b) === "member1=2 member3=2");

    await apply(fleet.control, deployment("gold", 6));
    await eventually("replica change", binding("gold-deployment"), (b) => targets(b) === "member1=3 member3=3");

    await apply(fleet.control, gold("Duplicated"));
    const settled = await eventually("policy change", binding("gold-deployment"), (b) => targets(b) === "member1=6 member3=6");

    // Elsewhere: another workload and policy, a label on a cluster this one does not select.
    await apply(fleet.control, deployment("other", 1));
    await apply(fleet.control, policy("other", {}));
    await kubectl(fleet.control, ["label", "cluster", "member2", "team=blue"]);
    await eventually("the other workload placed", binding("other-deployment"), (b) => b.spec.clusters.length === 3);
    await eventually("member2's label seen", () => getJson<ObjectJson>(fleet.control, ["cluster", "member2"]), (c) => c.metadata.labels?.team === "blue");
    await new Promise((r) => setTimeout(r, 2_000)); // a reschedule would have happened by now
    const later = await binding("gold-deployment")();
    assert.equal(later?.metadata.generation, settled.metadata.generation, "the binding's spec was not rewritten");
    assert.equal(targets(later as Binding), "member1=6 member3=6");

    await kubectl(fleet.control, ["label", "cluster", "member3", "tier=silver", "--overwrite"]);
    await eventually("member3 leaves", binding("gold-deployment"), (b) => targets(b) === "member1=6");
    await eventually("member3 lets go", () => getJson<ObjectJson>(m3, ["deploy", "-n", NS, "gold"]).then((d) => (d === undefined ? "gone" : undefined)), () => true);
  });

  it("gives a leaving cluster's share to the others and a joining cluster its share", async () => {
    await apply(fleet.control, deployment("joined", 6));
    await apply(fleet.control, policy("joined", { placement: { replicaScheduling: { replicaSchedulingType: "Divided" } } }));
    await eventually("2/2/2", binding("joined-deployment"), (b) => targets(b) === "member1=2 member2=2 member3=2");
    await eventually("member3 runs 2", () => getJson<ObjectJson>(m3, ["deploy", "-n", NS, "joined"]), (d) => d.spec?.replicas === 2);

    await kubectl(fleet.control, ["delete", "cluster", "member3"]);
    await eventually("3/3 without member3", binding("joined-deployment"), (b) => targets(b) === "member1=3 member2=3");
    await eventually("member3 lets go", () => getJson<ObjectJson>(m3, ["deploy", "-n", NS, "joined"]).then((d) => (d === undefined ? "gone" : undefined)), () => true);

    await apply(fleet.control, JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name: "member3", labels: { tier: "silver" } }, spec: { region: "us" } }));
    // A new Cluster object revoked the old certificate (bound to the old uid): the agent gets a new one.
    await flotilla.reissueAgentCertificate("member3");
    await flotilla.stopAgent("member3");
    await flotilla.startAgent("member3");
    await eventually("member3 Ready again", () => getJson<{ status?: { conditions?: { type: string; status: string }[] } }>(fleet.control, ["cluster", "member3"]), (c) => c.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True") === true, 30_000);
    await eventually("2/2/2 again", binding("joined-deployment"), (b) => targets(b) === "member1=2 member2=2 member3=2");
    await eventually("member3 runs 2 again", () => getJson<ObjectJson>(m3, ["deploy", "-n", NS, "joined"]), (d) => d.spec?.replicas === 2);
  });

  it("takes the ConfigMaps and Secrets a Deployment uses along, moves them with it, and removes them when it goes", async () => {
    await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "web-conf", namespace: NS }, data: { MODE: "fleet" } }));
    await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "web-creds", namespace: NS }, stringData: { token: "s3cret" } }));
    await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "unused", namespace: NS }, data: {} }));
    await apply(
      fleet.control,
      deployment("deps", 1, {
        containers: [{ name: "c", image: "nginx", envFrom: [{ configMapRef: { name: "web-conf" } }] }],
        volumes: [{ name: "creds", secret: { secretName: "web-creds" } }],
      }),
    );
    await apply(fleet.control, policy("deps", { propagateDeps: true, placement: { clusterAffinity: { clusterNames: ["member1", "member2"] } } }));
    for (const m of [m1, m2]) {
      await eventually(`ConfigMap in ${m.name}`, () => getJson<ObjectJson & { data?: Record<string, string> }>(m, ["configmap", "-n", NS, "web-conf"]), (c) => c.data?.MODE === "fleet");
      await eventually(`Secret in ${m.name}`, () => getJson<ObjectJson>(m, ["secret", "-n", NS, "web-creds"]), () => true);
    }
    const dep = await eventually("dependency binding", binding("web-conf-configmap"), (b) => targets(b) === "member1 member2");
    assert.deepEqual(dep.spec.requiredBy, [{ name: "deps-deployment", clusters: ["member1", "member2"], resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: NS, name: "deps" } }]);
    // The workload's binding says what it requires, so the hub keeps those where it is placed (issue 37).
    const parent = await binding("deps-deployment")();
    assert.equal((parent?.metadata as { annotations?: Record<string, string> }).annotations?.["flotilla.dev/requires"], `core/v1/ConfigMap/${NS}/web-conf,core/v1/Secret/${NS}/web-creds`);
    assert.equal(await getJson(m3, ["configmap", "-n", NS, "web-conf"]), undefined, "member3 runs nothing that needs it");
    assert.equal(await getJson(m1, ["configmap", "-n", NS, "unused"]), undefined, "what nothing refers to stays home");

    // The workload moves: its dependencies move with it.
    await apply(fleet.control, policy("deps", { propagateDeps: true, placement: { clusterAffinity: { clusterNames: ["member2"] } } }));
    await eventually("ConfigMap leaves member1", () => getJson(m1, ["configmap", "-n", NS, "web-conf"]).then((c) => (c === undefined ? "gone" : undefined)), () => true);
    assert.equal(await getJson(m1, ["deploy", "-n", NS, "deps"]), undefined, "the Deployment that mounted it went first");
    assert.ok(await getJson(m2, ["configmap", "-n", NS, "web-conf"]), "member2 keeps it");

    // A change to the dependency follows too.
    await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "web-conf", namespace: NS }, data: { MODE: "changed" } }));
    await eventually("member2 sees the change", () => getJson<ObjectJson & { data?: Record<string, string> }>(m2, ["configmap", "-n", NS, "web-conf"]), (c) => c.data?.MODE === "changed");

    await kubectl(fleet.control, ["delete", "deployment", "-n", NS, "deps"]);
    for (const kind of ["configmap/web-conf", "secret/web-creds"]) {
      await eventually(`${kind} leaves member2`, () => getJson(m2, [kind, "-n", NS]).then((c) => (c === undefined ? "gone" : undefined)), () => true);
    }
    await eventually("dependency binding gone", () => binding("web-conf-configmap")().then((b) => (b === undefined ? "gone" : undefined)), () => true);
    assert.ok(await getJson(fleet.control, ["configmap", "-n", NS, "web-conf"]), "the template itself stays in the control cluster");
  });

  it("keeps a dependency in a member while the workload placed there still uses it, after a policy without propagateDeps takes the workload (issue 37)", async () => {
    await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "held-conf", namespace: NS }, data: { MODE: "fleet" } }));
    await apply(fleet.control, deployment("held", 1, { containers: [{ name: "c", image: "nginx", envFrom: [{ configMapRef: { name: "held-conf" } }] }] }));
    await apply(fleet.control, policy("held", { propagateDeps: true, placement: { clusterAffinity: { clusterNames: ["member2"] } } }));
    const conf = await eventually("held-conf in member2", () => getJson<ObjectJson & { metadata: { uid: string } }>(m2, ["configmap", "-n", NS, "held-conf"]), () => true);
    // Another policy for the same Deployment, without propagateDeps; it takes the Deployment once the first is deleted.
    const other = JSON.stringify({
      apiVersion: "flotilla.dev/v1alpha1",
      kind: "PropagationPolicy",
      metadata: { name: "held-plain", namespace: NS },
      spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "held" }], placement: { clusterAffinity: { clusterNames: ["member2"] } } },
    });
    await apply(fleet.control, other);
    await kubectl(fleet.control, ["delete", "propagationpolicy", "-n", NS, "held"]);
    await eventually("held-plain holds the Deployment, without propagateDeps", binding("held-deployment"), (b) => (b.metadata as { labels?: Record<string, string> }).labels?.["flotilla.dev/policy-name"] === "held-plain" && (b.spec as { propagateDeps?: boolean }).propagateDeps !== true);
    // Outlasts the 2 s --dependency-release-grace-period (before(): a release would be done by then).
    await new Promise((r) => setTimeout(r, 6_000));
    assert.equal((await getJson<ObjectJson & { metadata: { uid: string } }>(m2, ["configmap", "-n", NS, "held-conf"]))?.metadata.uid, conf.metadata.uid, "member2 keeps the ConfigMap the Deployment running there uses");
    const dep = await binding("held-conf-configmap")();
    assert.deepEqual(dep?.spec.requiredBy, [{ name: "held-deployment", clusters: ["member2"], resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: NS, name: "held" } }], "still required by the Deployment's binding");

    // Placed nowhere new without propagateDeps: the Deployment also goes to member3, the ConfigMap does not.
    await apply(fleet.control, JSON.stringify({ ...JSON.parse(other), spec: { ...JSON.parse(other).spec, placement: { clusterAffinity: { clusterNames: ["member2", "member3"] } } } }));
    await eventually("held in member3", () => getJson(m3, ["deploy", "-n", NS, "held"]), () => true);
    await new Promise((r) => setTimeout(r, 3_000)); // room for a dependency Work that should not come
    assert.equal(await getJson(m3, ["configmap", "-n", NS, "held-conf"]), undefined, "no dependency propagated without propagateDeps");
    assert.deepEqual((await binding("held-conf-configmap")())?.spec.requiredBy, [{ name: "held-deployment", clusters: ["member2"], resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: NS, name: "held" } }], "held in member2 only");

    // The workload stops using it (its policy still without propagateDeps): nothing holds it, and it leaves member2.
    await apply(fleet.control, deployment("held", 1));
    await eventually("held-conf leaves member2", () => getJson(m2, ["configmap", "-n", NS, "held-conf"]).then((c) => (c === undefined ? "gone" : undefined)), () => true, 60_000);
    assert.ok(await getJson(m2, ["deploy", "-n", NS, "held"]), "the Deployment stays");
    await kubectl(fleet.control, ["delete", "deployment", "-n", NS, "held"]);
  });

  it("keeps a ConfigMap's last placement when its own policy lets go of it while a Deployment's propagateDeps still needs it somewhere (issue 37, found by the deletion model)", async () => {
    await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "both-conf", namespace: NS }, data: { MODE: "fleet" } }));
    const own = JSON.stringify({
      apiVersion: "flotilla.dev/v1alpha1",
      kind: "PropagationPolicy",
      metadata: { name: "both-conf", namespace: NS },
      spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "both-conf" }], placement: { clusterAffinity: { clusterNames: ["member1", "member2", "member3"] } } },
    });
    await apply(fleet.control, own);
    await apply(fleet.control, deployment("both", 1, { containers: [{ name: "c", image: "nginx", envFrom: [{ configMapRef: { name: "both-conf" } }] }] }));
    await apply(fleet.control, policy("both", { propagateDeps: true, placement: { clusterAffinity: { clusterNames: ["member2"] } } }));
    await eventually("required by the Deployment", binding("both-conf-configmap"), (b) => targets(b) === "member1 member2 member3" && (b.spec as { requiredBy?: unknown[] }).requiredBy?.length === 1);
    const uids = new Map<string, string>();
    for (const m of [m1, m3]) uids.set(m.name, (await eventually(`both-conf in ${m.name}`, () => getJson<ObjectJson & { metadata: { uid: string } }>(m, ["configmap", "-n", NS, "both-conf"]), () => true)).metadata.uid);
    await kubectl(fleet.control, ["delete", "propagationpolicy", "-n", NS, "both-conf"]);
    const kept = await eventually("the binding says no policy claims it", binding("both-conf-configmap"), (b) => JSON.stringify(b.status ?? {}).includes("no PropagationPolicy"));
    assert.equal(targets(kept), "member1 member2 member3", "its last placement, not only where the Deployment is");
    // Outlasts a removal's way to the agents (the settle period is not involved: every member is Ready).
    await new Promise((r) => setTimeout(r, 4_000));
    for (const m of [m1, m3]) assert.equal((await getJson<ObjectJson & { metadata: { uid: string } }>(m, ["configmap", "-n", NS, "both-conf"]))?.metadata.uid, uids.get(m.name), `${m.name} keeps it`);
    await kubectl(fleet.control, ["delete", "deployment", "-n", NS, "both"]);
  });

  it("releases a dependency no workload needs no more once a policy claims it before its binding is gone (issue 37, found by the deletion model)", async () => {
    await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "rel-conf", namespace: NS }, data: { MODE: "fleet" } }));
    await apply(fleet.control, deployment("rel", 1, { containers: [{ name: "c", image: "nginx", envFrom: [{ configMapRef: { name: "rel-conf" } }] }] }));
    await apply(fleet.control, policy("rel", { propagateDeps: true, placement: { clusterAffinity: { clusterNames: ["member3"] } } }));
    const conf = await eventually("rel-conf in member3", () => getJson<ObjectJson & { metadata: { uid: string } }>(m3, ["configmap", "-n", NS, "rel-conf"]), () => true);
    // member3's agent is away: the release, when it comes, waits for it.
    await flotilla.stopAgent("member3");
    try {
      // The Deployment stops using it: after the grace period (2 s here) its binding is released.
      await apply(fleet.control, deployment("rel", 1));
      type Meta = { metadata: { deletionTimestamp?: string; annotations?: Record<string, string>; labels?: Record<string, string> } };
      await eventually("rel-conf's binding released", binding("rel-conf-configmap"), (b) => (b as unknown as Meta).metadata.annotations?.["flotilla.dev/released-because"] === "DependencyReleased");
      // A policy of its own claims it before the binding is gone: released no more, and made again under the policy.
      await apply(
        fleet.control,
        JSON.stringify({
          apiVersion: "flotilla.dev/v1alpha1",
          kind: "PropagationPolicy",
          metadata: { name: "rel-conf", namespace: NS },
          spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "rel-conf" }], placement: { clusterAffinity: { clusterNames: ["member3"] } } },
        }),
      );
      await eventually("rel-conf's binding made again under its policy", binding("rel-conf-configmap"), (b) => {
        const m = (b as unknown as Meta).metadata;
        return m.deletionTimestamp === undefined && m.labels?.["flotilla.dev/policy-name"] === "rel-conf";
      });
    } finally {
      await flotilla.startAgent("member3");
    }
    await eventually("member3 Ready", () => getJson<{ status?: { conditions?: { type: string; status: string }[] } }>(fleet.control, ["cluster", "member3"]), (c) => c.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True") === true, 30_000);
    // Outlasts the agent's resync and a removal's way to it.
    await new Promise((r) => setTimeout(r, 4_000));
    assert.equal((await getJson<ObjectJson & { metadata: { uid: string } }>(m3, ["configmap", "-n", NS, "rel-conf"]))?.metadata.uid, conf.metadata.uid, "member3 keeps the very ConfigMap");
    await kubectl(fleet.control, ["delete", "deployment", "-n", NS, "rel"]);
  });

  it("leaves the member copies, no longer managed, when a template under preserveResourcesOnDeletion is deleted", async () => {
    await apply(fleet.control, deployment("kept", 1));
    await apply(fleet.control, policy("kept", { preserveResourcesOnDeletion: true, placement: { clusterAffinity: { clusterNames: ["member1"] } } }));
    await eventually("kept in member1", () => getJson<ObjectJson>(m1, ["deploy", "-n", NS, "kept"]), (d) => d.metadata.labels?.["flotilla.dev/work"] !== undefined);
    await kubectl(fleet.control, ["delete", "deployment", "-n", NS, "kept"]);
    await eventually("binding released", () => binding("kept-deployment")().then((b) => (b === undefined ? "gone" : undefined)), () => true);
    const left = await getJson<ObjectJson>(m1, ["deploy", "-n", NS, "kept"]);
    assert.ok(left, "the member copy stays");
    assert.equal(left.metadata.labels?.["flotilla.dev/work"], undefined, "no longer labelled as Flotilla's");
    assert.equal(Object.keys(left.metadata.annotations ?? {}).some((k) => k.startsWith("flotilla.dev/")), false, "no Flotilla annotation");

    // Without the flag, deletion removes the copies (the default is unchanged).
    await apply(fleet.control, deployment("dropped", 1));
    await apply(fleet.control, policy("dropped", { placement: { clusterAffinity: { clusterNames: ["member1"] } } }));
    await eventually("dropped in member1", () => getJson<ObjectJson>(m1, ["deploy", "-n", NS, "dropped"]), () => true);
    await kubectl(fleet.control, ["delete", "deployment", "-n", NS, "dropped"]);
    await eventually("removed from member1", () => getJson(m1, ["deploy", "-n", NS, "dropped"]).then((d) => (d === undefined ? "gone" : undefined)), () => true);
  });
});
