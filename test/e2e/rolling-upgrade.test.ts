// Issue 20 item 11 on real processes: a rolling upgrade from the previous commit's Flotilla
// (FLOTILLA_UPGRADE_FROM, default HEAD~1, checked out beside this one) to this checkout's. Old
// and new control-plane replicas run side by side and the lease goes from old to new, back to
// old (an old pod restarted by its kubelet mid-rollout takes it again), and to new for good;
// agents of both versions serve the members meanwhile. Through the whole upgrade each member
// object is written at most once (the new version may add what it renders differently) and
// nothing is deleted: every member object keeps its uid. A custom kind in a dotted group is among
// the templates, since its binding's name is where versions have differed.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { CURRENT_VERSION, type Flotilla, type FlotillaVersion, startFlotilla } from "../env/flotilla.ts";
import { sizedCrd } from "../env/sized-crd.ts";
import { checkoutPreviousVersion, type PreviousVersion } from "../env/previous-version.ts";
import { waitFor } from "../env/wait.ts";
import { apply, type BindingJson, condition, eventually, getJson, kubectl, sleep } from "./helpers.ts";
import { MemberWrites } from "./member-writes.ts";

const NS = "upgrade";
const MEMBERS = ["member1", "member2"];

const WIDGET_GROUP = "upgrade.flotilla.dev";

const WATCHED = [
  { apiVersion: `${WIDGET_GROUP}/v1`, kind: "Widget", plural: "widgets", namespaced: true },
  { apiVersion: "apps/v1", kind: "Deployment", plural: "deployments", namespaced: true },
  { apiVersion: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true },
  { apiVersion: "v1", kind: "Secret", plural: "secrets", namespaced: true },
  { apiVersion: "v1", kind: "Service", plural: "services", namespaced: true },
];

/** A CRD in a dotted group, propagated to every member. */
const CRD = [
  sizedCrd(WIDGET_GROUP, "Widget", "widgets"),
  {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "ClusterPropagationPolicy",
    metadata: { name: "upgrade-widgets-crd" },
    spec: { resourceSelectors: [{ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name: `widgets.${WIDGET_GROUP}` }], placement: { clusterAffinity: { clusterNames: MEMBERS } } },
  },
];

/** The templates: a Divided Deployment with a ConfigMap it needs (propagateDeps), and a Duplicated ConfigMap, Secret, Service and Widget. */
const TEMPLATES = [
  { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", namespace: NS }, data: { mode: "fast" } },
  {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: NS },
    spec: {
      replicas: 4,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx", envFrom: [{ configMapRef: { name: "settings" } }] }] } },
    },
  },
  { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "extra", namespace: NS, labels: { tier: "shared" } }, data: { v: "1" } },
  { apiVersion: "v1", kind: "Secret", metadata: { name: "token", namespace: NS, labels: { tier: "shared" } }, stringData: { token: "s3cret" } },
  { apiVersion: "v1", kind: "Service", metadata: { name: "web", namespace: NS, labels: { tier: "shared" } }, spec: { selector: { app: "web" }, ports: [{ port: 80 }] } },
  { apiVersion: `${WIDGET_GROUP}/v1`, kind: "Widget", metadata: { name: "web", namespace: NS, labels: { tier: "shared" } }, spec: { size: 3 } },
  {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "PropagationPolicy",
    metadata: { name: "web", namespace: NS },
    spec: {
      resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web" }],
      propagateDeps: true,
      placement: {
        clusterAffinity: { clusterNames: MEMBERS },
        replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { staticWeightList: [{ targetCluster: {}, weight: 1 }] } },
      },
    },
  },
  {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "PropagationPolicy",
    metadata: { name: "shared", namespace: NS },
    spec: {
      resourceSelectors: [...["ConfigMap", "Secret", "Service"].map((kind) => ({ apiVersion: "v1", kind })), { apiVersion: `${WIDGET_GROUP}/v1`, kind: "Widget" }].map((s) => ({ ...s, labelSelector: { matchLabels: { tier: "shared" } } })),
      placement: { clusterAffinity: { clusterNames: MEMBERS } },
    },
  },
];

/** The member objects Flotilla puts in each member. */
const EXPECTED = ["Deployment/web", "ConfigMap/settings", "ConfigMap/extra", "Secret/token", "Service/web", "Widget/web"];

interface Bound extends BindingJson {
  spec: BindingJson["spec"] & { resource: { kind: string; name: string } };
}

describe("a rolling upgrade from the previous commit", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let previous: PreviousVersion;
  let old: FlotillaVersion;
  const watches: MemberWrites[] = [];
  before(async () => {
    fleet = await startFleet({ members: 2 });
    previous = await checkoutPreviousVersion(fleet.root);
    old = { flotillaBin: previous.flotillaBin, flags: previous.flags };
    // Agents dial one address in front of every replica, as behind a Service. The failure
    // threshold is the control plane's default, 30 s (the tests' 5 s would let a slow agent restart on a loaded machine
    // evict its Divided share, a failover this test is not about).
    // --cluster-ready-settle-period 3 s for this checkout's control planes (the previous version's keeps its 10 s; none leads at the end).
    flotilla = await startFlotilla(fleet, { hubProxy: true, version: old, clusterFailureThreshold: "30s", controlPlaneArgs: ["--cluster-ready-settle-period=3s"] });
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    for (const w of watches) w.stop();
    await flotilla?.stop();
    await fleet?.stop();
  });

  const members = () => fleet.members as Cluster[];
  const uids = async (m: Cluster) => {
    const out = new Map<string, string>();
    for (const id of EXPECTED) {
      const [kind, name] = id.split("/") as [string, string];
      const o = await getJson<{ metadata: { uid: string } }>(m, [kind === "Widget" ? `widgets.${WIDGET_GROUP}` : kind.toLowerCase(), "-n", NS, name]);
      if (o !== undefined) out.set(id, o.metadata.uid);
    }
    return out;
  };
  // Each template has a binding placed on both members and fully applied there (by whichever name the leader's version gives it).
  const settled = async () => {
    const bound = (b: Bound) => b.spec.clusters.length === 2 && condition(b, "FullyApplied")?.status === "True";
    await eventually(
      "every template fully applied on both members",
      async () => (await getJson<{ items: Bound[] }>(fleet.control, ["rb", "-n", NS]))?.items,
      (items) => EXPECTED.every((id) => items.some((b) => `${b.spec.resource.kind}/${b.spec.resource.name}` === id && bound(b))),
      90_000,
    );
    for (const m of members()) await eventually(`every object in ${m.name}`, () => uids(m), (u) => u.size === EXPECTED.length, 90_000);
  };

  it("writes each member object at most once and deletes nothing, with old and new replicas and agents side by side", async (t) => {
    const oldReplica = await flotilla.startReplica();
    for (const t of CRD) await apply(fleet.control, JSON.stringify(t));
    await kubectl(fleet.control, ["wait", "--for=condition=Established", `crd/widgets.${WIDGET_GROUP}`, "--timeout=60s"]);
    for (const t of TEMPLATES) await apply(fleet.control, JSON.stringify(t));
    await settled();
    const split = (await getJson<BindingJson>(fleet.control, ["rb", "-n", NS, "web-deployment"]))?.spec.clusters.map((c) => `${c.name}=${c.replicas}`).join(" ");
    assert.equal(split, "member1=2 member2=2");
    const before = new Map(await Promise.all(members().map(async (m) => [m.name, await uids(m)] as const)));
    for (const m of members()) {
      const w = new MemberWrites(m.kubeConfig(), NS, WATCHED);
      watches.push(w);
      await w.start();
    }

    // The upgrade, one process at a time, the fleet running a few seconds in each mixed state.
    let newReplica: Awaited<ReturnType<Flotilla["startReplica"]>> | undefined;
    const leads = async (port: number) => (await flotilla.metricsAt(port).catch(() => ({}) as Record<string, number>)).flotilla_leader === 1;
    const waitLeader = (port: number, who: string) => waitFor(async () => (await leads(port)) || undefined, { what: `${who} to lead`, timeoutMs: 30_000, intervalMs: 250 });
    const steps: [string, () => Promise<unknown>][] = [
      ["the old standby is replaced by a new replica", async () => {
        await oldReplica.process.stop();
        newReplica = await flotilla.startReplica(CURRENT_VERSION);
      }],
      ["member1's agent is upgraded", async () => {
        await flotilla.stopAgent("member1");
        await flotilla.startAgent("member1", { version: CURRENT_VERSION });
      }],
      ["the old leader restarts (still old): the new replica leads", async () => {
        await flotilla.controlPlane.restart(60_000, { graceful: true });
        await waitLeader(newReplica?.healthPort ?? 0, "the new replica");
      }],
      ["the new replica restarts: the old one leads again", async () => {
        await newReplica?.process.restart(60_000, { graceful: true });
        await waitLeader(flotilla.controlPlaneHealthPort, "the old replica");
      }],
      ["the old replica is upgraded in place: the new one leads", async () => {
        await flotilla.stopControlPlane();
        await waitLeader(newReplica?.healthPort ?? 0, "the new replica");
        await flotilla.startControlPlane(CURRENT_VERSION);
      }],
      ["member2's agent is upgraded", async () => {
        await flotilla.stopAgent("member2");
        await flotilla.startAgent("member2", { version: CURRENT_VERSION });
      }],
    ];
    for (const [what, step] of steps) {
      await step();
      await sleep(5_000);
      await settled().catch((err: unknown) => assert.fail(`after "${what}" (from ${previous.title}): ${String(err)}`));
    }
    // Past the hub's settle after a cluster's return (--cluster-ready-settle-period, 3 s here), and a resync or two.
    await sleep(6_000);
    await settled();

    const problems: string[] = [];
    for (const [i, m] of members().entries()) {
      const history = (watches[i] as MemberWrites).history();
      const now = await uids(m);
      for (const id of EXPECTED) {
        const h = history.get(id);
        if (now.get(id) !== before.get(m.name)?.get(id)) problems.push(`${m.name} ${id}: uid ${before.get(m.name)?.get(id)} became ${now.get(id) ?? "nothing"}`);
        if (h === undefined) continue;
        if (h.deletes > 0) problems.push(`${m.name} ${id}: deleted ${h.deletes} time(s)`);
        if (h.writes > 1) problems.push(`${m.name} ${id}: written ${h.writes} times (${h.changes.join(", ")})`);
      }
    }
    t.diagnostic(`upgraded from ${previous.title}`);
    for (const [i, m] of members().entries()) {
      const writes = [...(watches[i] as MemberWrites).history()].map(([id, h]) => `${id} ${h.writes}${h.changes.length > 0 ? ` (${h.changes.join(", ")})` : ""}`);
      t.diagnostic(`${m.name} writes: ${writes.join("; ")}`);
    }
    const names = (await getJson<{ items: Bound[] }>(fleet.control, ["rb", "-n", NS]))?.items.map((b) => b.metadata.name).sort();
    t.diagnostic(`bindings: ${names?.join(" ")}`);
    assert.deepEqual(problems, [], `upgrading from ${previous.title}`);

    // The upgraded fleet still propagates a change, and the watch sees it as one write: the
    // counts above are no blind instrument's.
    const extraWrites = watches.map((w) => w.history().get("ConfigMap/extra")?.writes ?? 0);
    await apply(fleet.control, JSON.stringify({ ...TEMPLATES.find((t) => t.metadata.name === "extra"), data: { v: "2" } }));
    for (const m of members()) await eventually(`the change in ${m.name}`, () => getJson<{ data: { v: string } }>(m, ["cm", "-n", NS, "extra"]), (c) => c.data.v === "2");
    for (const [i, m] of members().entries()) {
      const seen = await eventually(`the watch on ${m.name} to see the change`, async () => (watches[i] as MemberWrites).history().get("ConfigMap/extra"), (h) => h.writes > (extraWrites[i] ?? 0), 10_000);
      assert.equal(seen.writes, (extraWrites[i] ?? 0) + 1, `${m.name}: ${seen.changes.join(", ")}`);
    }
  });
});
