// Tests of the test environment itself, against the real binaries it builds.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { AppsV1Api, CoreV1Api, RbacAuthorizationV1Api } from "@kubernetes/client-node";
import { ensureBinaries } from "./binaries.ts";
import { seedPath, seedWanted } from "./etcd-seed.ts";
import { type Cluster, startCluster } from "./cluster.ts";
import { type Fleet, startFleet } from "./fleet.ts";
import { NEVER_READY_IMAGE } from "./kwok.ts";
import { isListening } from "./free-port.ts";
import { waitFor } from "./wait.ts";
import { isProcessAlive } from "./managed-process.ts";

function deployment(name: string, replicas: number, image = "nginx:1.27") {
  const labels = { app: name };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, labels },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: "web", image }] },
      },
    },
  };
}

describe("test/env fleet", () => {
  let fleet: Fleet;
  before(async () => {
    fleet = await startFleet({ members: 1 });
  });
  after(async () => {
    await fleet?.stop();
  });

  it("runs a Deployment applied to a member until it is Available, pods Running on kwok nodes", async () => {
    const member = fleet.members[0] as Cluster;
    const kc = member.kubeConfig();
    const apps = kc.makeApiClient(AppsV1Api);
    const core = kc.makeApiClient(CoreV1Api);
    await apps.createNamespacedDeployment({ namespace: "default", body: deployment("web", 3) });
    const available = await waitFor(
      async () => {
        const d = await apps.readNamespacedDeployment({ name: "web", namespace: "default" });
        const cond = d.status?.conditions?.find((c) => c.type === "Available");
        return cond?.status === "True" && d.status?.availableReplicas === 3 ? d : undefined;
      },
      { what: "Deployment web Available with 3 replicas", timeoutMs: 60_000, intervalMs: 250 },
    );
    assert.equal(available.status?.readyReplicas, 3);
    const pods = await core.listNamespacedPod({ namespace: "default", labelSelector: "app=web" });
    assert.equal(pods.items.length, 3);
    const nodes = new Set((await core.listNode()).items.map((n) => n.metadata?.name));
    for (const pod of pods.items) {
      assert.equal(pod.status?.phase, "Running", `pod ${pod.metadata?.name} phase`);
      assert.ok(nodes.has(pod.spec?.nodeName), `pod ${pod.metadata?.name} runs on a kwok node, not ${pod.spec?.nodeName}`);
    }
  });

  it("never makes a pod of NEVER_READY_IMAGE Ready (a bad release), while another image's pods are", async () => {
    const kc = (fleet.members[0] as Cluster).kubeConfig();
    const apps = kc.makeApiClient(AppsV1Api);
    const core = kc.makeApiClient(CoreV1Api);
    // The bad one first: by the time the good one (created after it) is Available, kwok has had
    // its chance at the bad pod.
    await apps.createNamespacedDeployment({ namespace: "default", body: deployment("bad", 1, NEVER_READY_IMAGE) });
    await waitFor(
      async () => (await core.listNamespacedPod({ namespace: "default", labelSelector: "app=bad" })).items.some((p) => p.spec?.nodeName),
      { what: "the bad pod scheduled onto a kwok node", timeoutMs: 60_000, intervalMs: 250 },
    );
    await apps.createNamespacedDeployment({ namespace: "default", body: deployment("good", 1) });
    await waitFor(
      async () => (await apps.readNamespacedDeployment({ name: "good", namespace: "default" })).status?.availableReplicas === 1,
      { what: "Deployment good Available", timeoutMs: 60_000, intervalMs: 250 },
    );
    await new Promise((r) => setTimeout(r, 3_000));
    const bad = await apps.readNamespacedDeployment({ name: "bad", namespace: "default" });
    assert.equal(bad.status?.availableReplicas ?? 0, 0, "the bad Deployment has no available replica");
    assert.equal(bad.status?.readyReplicas ?? 0, 0, "nor a ready one");
    const pods = (await core.listNamespacedPod({ namespace: "default", labelSelector: "app=bad" })).items;
    assert.equal(pods.length, 1);
    const pod = pods[0];
    assert.ok(pod?.spec?.nodeName, "the bad pod is on a node");
    assert.equal(pod?.status?.phase, "Pending", "the bad pod stays Pending");
    assert.notEqual(pod?.status?.conditions?.find((c) => c.type === "Ready")?.status, "True");
  });

  it("garbage-collects objects whose owner is deleted, in the control cluster", async () => {
    const core = fleet.control.kubeConfig().makeApiClient(CoreV1Api);
    const owner = await core.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "owner" }, data: { role: "owner" } },
    });
    await core.createNamespacedConfigMap({
      namespace: "default",
      body: {
        metadata: {
          name: "dependent",
          ownerReferences: [
            { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata?.uid as string },
          ],
        },
      },
    });
    const dependent = await core.readNamespacedConfigMap({ name: "dependent", namespace: "default" });
    assert.equal(dependent.metadata?.ownerReferences?.[0]?.uid, owner.metadata?.uid);
    await core.deleteNamespacedConfigMap({ name: "owner", namespace: "default" });
    await waitFor(
      async () => {
        const list = await core.listNamespacedConfigMap({ namespace: "default" });
        return !list.items.some((c) => c.metadata?.name === "dependent");
      },
      { what: "the dependent ConfigMap to be garbage-collected", timeoutMs: 60_000, intervalMs: 250 },
    );
  });

  it("deletes a namespace and what it holds, in the control cluster", async () => {
    const core = fleet.control.kubeConfig().makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: "doomed" } } });
    await core.createNamespacedConfigMap({ namespace: "doomed", body: { metadata: { name: "c" } } });
    await core.deleteNamespace({ name: "doomed" });
    await waitFor(
      async () => !(await core.listNamespace()).items.some((n) => n.metadata?.name === "doomed"),
      { what: "namespace doomed to be gone", timeoutMs: 60_000, intervalMs: 250 },
    );
  });

  it("keeps a Deployment in the control cluster a template: no ReplicaSet, no Pod", async () => {
    const kc = fleet.control.kubeConfig();
    const apps = kc.makeApiClient(AppsV1Api);
    const core = kc.makeApiClient(CoreV1Api);
    await apps.createNamespacedDeployment({ namespace: "default", body: deployment("template", 2) });
    // The controller-manager demonstrably acts in this cluster (the namespace test above needs
    // it); once it has also processed this namespace's next event, nothing may have appeared.
    await core.createNamespace({ body: { metadata: { name: "probe" } } });
    await core.deleteNamespace({ name: "probe" });
    await waitFor(
      async () => !(await core.listNamespace()).items.some((n) => n.metadata?.name === "probe"),
      { what: "namespace probe to be gone", timeoutMs: 60_000, intervalMs: 250 },
    );
    const d = await apps.readNamespacedDeployment({ name: "template", namespace: "default" });
    assert.equal(d.status?.observedGeneration, undefined, "no controller observed the Deployment");
    assert.deepEqual((await apps.listNamespacedReplicaSet({ namespace: "default" })).items, []);
    assert.deepEqual((await core.listPodForAllNamespaces()).items, []);
  });

  it("starts every cluster from the etcd seed, each one its own: its kube-system uid (a cluster ID), its CA in extension-apiserver-authentication, the seed's first-start objects there", async () => {
    for (const cluster of [fleet.control, ...fleet.members]) {
      const kc = cluster.kubeConfig();
      const core = kc.makeApiClient(CoreV1Api);
      const ca = Buffer.from(kc.getCurrentCluster()?.caData ?? "", "base64").toString("utf8").trim();
      assert.ok(ca.startsWith("-----BEGIN CERTIFICATE-----"), "the kubeconfig names the cluster's CA");
      const auth = await core.readNamespacedConfigMap({ name: "extension-apiserver-authentication", namespace: "kube-system" });
      assert.equal(auth.data?.["client-ca-file"]?.trim(), ca, `${cluster.name} trusts its own CA, not the seed's`);
      // What a first start writes: RBAC's cluster-admin binding, the kubernetes Service. (No
      // Endpoints: the apiserver publishes none for a loopback address.)
      const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
      assert.equal((await rbac.readClusterRoleBinding({ name: "cluster-admin" })).roleRef.name, "cluster-admin");
      assert.equal((await core.readNamespacedService({ name: "kubernetes", namespace: "default" })).spec?.clusterIP, "10.0.0.1");
    }
    // kube-system's uid is a cluster's ID (Karmada's, the MCS API's): each cluster has its own.
    const ids = await Promise.all([fleet.control, ...fleet.members].map(async (c) => (await c.kubeConfig().makeApiClient(CoreV1Api).readNamespace({ name: "kube-system" })).metadata?.uid));
    assert.equal(new Set(ids).size, ids.length, `every cluster has its own kube-system uid: ${ids.join(", ")}`);
    // From the seed, RBAC's first-start objects are the seed's own, the same in every cluster;
    // from empty etcds (FLOTILLA_TEST_ETCD_SEED=0), each cluster makes its own.
    const admins = await Promise.all([fleet.control, ...fleet.members].map(async (c) => (await c.kubeConfig().makeApiClient(RbacAuthorizationV1Api).readClusterRoleBinding({ name: "cluster-admin" })).metadata?.uid));
    if (seedWanted()) {
      assert.equal(new Set(admins).size, 1, `every cluster started from the seed: ${admins.join(", ")}`);
      assert.ok(existsSync(seedPath(await ensureBinaries())), "the seed is in the cache");
    } else assert.equal(new Set(admins).size, admins.length, "every cluster started empty");
  });
});

describe("test/env teardown", () => {
  it("leaves no process, listening port or directory behind", async () => {
    const dir = `${process.env.TMPDIR ?? "/tmp"}/flotilla-teardown-${process.pid}`;
    const cluster = await startCluster({ name: "teardown", role: "member", dir });
    const pids = cluster.processes.map((p) => p.pid);
    assert.equal(pids.length, 5, "etcd, apiserver, controller-manager, scheduler, kwok");
    for (const port of cluster.ports) assert.ok(await isListening(port), `port ${port} listens while running`);
    await cluster.stop();
    for (const pid of pids) assert.ok(!isProcessAlive(pid), `pid ${pid} is gone`);
    for (const port of cluster.ports) assert.ok(!(await isListening(port)), `port ${port} is free`);
    assert.ok(!existsSync(dir), `${dir} is removed`);
  });
});
