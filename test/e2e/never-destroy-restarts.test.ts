// DESIGN §11 on real clusters: kills and restarts of agents and of the control plane never delete
// or replace what runs in a member. Partitions: never-destroy-partitions.test.ts; a failed apply:
// never-destroy.test.ts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CoreV1Api } from "@kubernetes/client-node";
import { waitFor } from "../env/wait.ts";
import { workKeyLabelValue } from "../../shared/work-key.ts";
import { keepFleet, NS, sharedDivided } from "./never-destroy.fixtures.ts";
import { apply, type BindingJson, deletions, eventually, getJson, kubectl, sleep } from "./helpers.ts";

describe("never destroy what runs: kills and restarts", () => {
  const h = keepFleet();

  it("an agent killed with -9 between an apply and its record leaves no orphan: the object goes when its template does", async () => {
    const core = h.m1.kubeConfig().makeApiClient(CoreV1Api);
    const cm = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "orphan", namespace: NS }, data: { a: "1" } });
    const cmPolicy = JSON.stringify({
      apiVersion: "flotilla.dev/v1alpha1",
      kind: "PropagationPolicy",
      metadata: { name: "orphan", namespace: NS },
      spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "orphan" }], placement: { clusterAffinity: { clusterNames: ["member1"] } } },
    });
    await apply(h.fleet.control, cm);
    await apply(h.fleet.control, cmPolicy);
    // Kill the agent the moment the object exists in member1: before the old code's delayed record.
    await waitFor(() => core.readNamespacedConfigMap({ name: "orphan", namespace: NS }).then(() => true, () => false), { what: "orphan in member1", timeoutMs: 30_000, intervalMs: 20 });
    await h.flotilla.agents.get("member1")?.process.kill();
    await kubectl(h.fleet.control, ["delete", "configmap", "-n", NS, "orphan", "--wait=false"]);
    await h.flotilla.startAgent("member1");
    await eventually("the object is deleted with its template", () => core.readNamespacedConfigMap({ name: "orphan", namespace: NS }).then(() => undefined, () => "gone"), () => true, 60_000);
    const metrics = await h.flotilla.agentMetrics("member1");
    assert.ok((metrics['flotilla_agent_deletes_total{reason="TemplateDeleted"}'] ?? 0) >= 1, `the deletion is counted with its reason: ${JSON.stringify(deletions(metrics))}`);
  });

  it("a restarted agent adopts labelled objects no record names, and deletes one only when the hub says its Work is not wanted", async () => {
    const core = h.m1.kubeConfig().makeApiClient(CoreV1Api);
    const labelledCm = (name: string, key: string) =>
      JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: NS, labels: { "flotilla.dev/work": workKeyLabelValue(key) }, annotations: { "flotilla.dev/work-key": key } }, data: { left: "behind" } });
    // A Work that is wanted (its template and policy exist), and one that is not (no template at all).
    await apply(h.fleet.control, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "wanted", namespace: NS }, data: { a: "1" } }));
    await apply(h.fleet.control, JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "wanted", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "wanted" }], placement: { clusterAffinity: { clusterNames: ["member1"] } } } }));
    await eventually("wanted in member1", () => getJson(h.m1, ["cm", "-n", NS, "wanted"]), () => true);
    await h.flotilla.stopAgent("member1");
    // What an agent that crashed before writing its record would have left.
    await apply(h.m1, labelledCm("stray", `core/v1/ConfigMap/${NS}/stray`));
    const wanted = await getJson<{ metadata: { uid: string } }>(h.m1, ["cm", "-n", NS, "wanted"]);
    await h.flotilla.startAgent("member1");
    await eventually("the stray object is deleted: its Work is not wanted", () => core.readNamespacedConfigMap({ name: "stray", namespace: NS }).then(() => undefined, () => "gone"), () => true, 60_000);
    const metrics = await h.flotilla.agentMetrics("member1");
    // Its template does not exist: the hub's reason is TemplateDeleted.
    assert.ok((metrics['flotilla_agent_deletes_total{reason="TemplateDeleted"}'] ?? 0) >= 1, `deleted for the hub's reason: ${JSON.stringify(deletions(metrics))}`);
    assert.equal((await getJson<{ metadata: { uid: string } }>(h.m1, ["cm", "-n", NS, "wanted"]))?.metadata.uid, wanted?.metadata.uid, "the wanted object is untouched");
  });

  it("a user's copy of an applied object, under another name with its labels, is not adopted: it survives an agent restart and a template edit (issue 37, item 3)", async () => {
    const core = h.m1.kubeConfig().makeApiClient(CoreV1Api);
    const cm = (a: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "copied", namespace: NS }, data: { a } });
    await apply(h.fleet.control, cm("1"));
    await apply(h.fleet.control, JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "copied", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "copied" }], placement: { clusterAffinity: { clusterNames: ["member1"] } } } }));
    const original = await eventually("copied in member1", () => getJson<{ metadata: { labels: Record<string, string>; annotations: Record<string, string> } }>(h.m1, ["cm", "-n", NS, "copied"]), (o) => o !== undefined);
    // `kubectl get -o yaml | sed s/copied/copied-by-hand/ | kubectl apply`: the Work's label and key annotation come along.
    await apply(h.m1, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "copied-by-hand", namespace: NS, labels: original?.metadata.labels, annotations: original?.metadata.annotations }, data: { a: "1" } }));
    const copy = await core.readNamespacedConfigMap({ name: "copied-by-hand", namespace: NS });
    await h.flotilla.stopAgent("member1");
    await h.flotilla.startAgent("member1");
    // Connected and synced, so its start's scan for orphans is done before the edit arrives.
    await eventually("member1's new agent is connected", () => h.flotilla.agentMetrics("member1"), (m) => m.flotilla_agent_connected === 1);
    await sleep(1_000);
    await apply(h.fleet.control, cm("2"));
    await eventually("the template's edit reaches member1", () => core.readNamespacedConfigMap({ name: "copied", namespace: NS }).then((o) => o.data?.a), (a) => a === "2");
    // The old agent adopted the copy into the Work's record at its start and pruned it right after
    // the edit's apply, in the same run of that Work (milliseconds): 2 s outlasts that run.
    await sleep(2_000);
    const after = await core.readNamespacedConfigMap({ name: "copied-by-hand", namespace: NS }).catch(() => undefined);
    assert.equal(after?.metadata?.uid, copy.metadata?.uid, "the user's copy is still there, the same object");
  });

  it("a Work the hub keeps without sending (its render fails after a control-plane restart) stays when its object changes in the member", async () => {
    const cm = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: NS }, data: { a: "1" } });
    for (const name of ["kept", "beside"]) {
      await apply(h.fleet.control, cm(name));
      await apply(h.fleet.control, JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name, namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name }], placement: { clusterAffinity: { clusterNames: ["member1"] } } } }));
      await eventually(`${name} in member1`, () => getJson(h.m1, ["cm", "-n", NS, name]), () => true);
    }
    const kept = await getJson<{ metadata: { uid: string } }>(h.m1, ["cm", "-n", NS, "kept"]);
    // An override that cannot apply: no Work renders for member1, the copy there stays as it was.
    await apply(h.fleet.control, JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "OverridePolicy", metadata: { name: "kept", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "kept" }], overrideRules: [{ targetCluster: { clusterNames: ["member1"] }, overriders: { plaintext: [{ path: "/spec/nothing", operator: "remove" }] } }] } }));
    await eventually("kept says its overrides failed", () => getJson<BindingJson>(h.fleet.control, ["rb", "-n", NS, "kept-configmap"]), (b) => JSON.stringify(b.status ?? {}).includes("ApplyOverridesFailed"));
    // Both restart: the hub has no Work for kept (and no intent to delete it); the agent holds its record.
    await h.flotilla.stopAgent("member1");
    await h.flotilla.stopControlPlane();
    await h.flotilla.startControlPlane();
    await h.flotilla.startAgent("member1");
    await eventually("the agent synced", () => h.flotilla.agentMetrics("member1"), (m) => m.flotilla_agent_connected === 1 && (m.flotilla_agent_works ?? 0) >= 1);
    // beside's apply starts the agent's ConfigMap watch; a change to kept in the member wakes its Work.
    await kubectl(h.m1, ["label", "cm", "-n", NS, "kept", "touched=yes"]);
    await new Promise((r) => setTimeout(r, 5_000));
    assert.equal((await getJson<{ metadata: { uid: string } }>(h.m1, ["cm", "-n", NS, "kept"]))?.metadata.uid, kept?.metadata.uid, "kept still runs, the same object");
    assert.deepEqual(deletions(await h.flotilla.agentMetrics("member1")), {}, "the agent deleted nothing");
  });

  it("a Divided workload keeps every member's object through a control-plane kill -9 with a restart 20 s later", async () => {
    const { split, sameObjects, ready } = await sharedDivided(h);
    // The control plane killed with -9, restarted 20 s later: no cluster turns NotReady, nothing moves.
    // 20 s is past the clusters' Leases (--cluster-lease-renew-interval 1 s + --cluster-failure-threshold
    // 5 s here): the restarted leader finds every lease expired. And the agents' reconnect backoff
    // (full jitter, doubling from 0.5 s to 30 s) has grown past the failure threshold by then:
    // only --cluster-startup-grace-period (its default, 5 s + 60 s here) keeps them Ready.
    const readyBefore = await Promise.all(["member1", "member2"].map(ready));
    await h.flotilla.controlPlane.kill();
    await new Promise((r) => setTimeout(r, 20_000));
    await sameObjects("while the control plane was down");
    await h.flotilla.startControlPlane();
    for (const m of ["member1", "member2"]) {
      await eventually(`${m}'s agent reconnected`, () => h.flotilla.agentMetrics(m), (x) => x.flotilla_agent_connected === 1, 60_000);
    }
    await eventually("heartbeats judged", async () => [await ready("member1"), await ready("member2")], (r) => r.every((c) => c?.status === "True"));
    const readyAfter = await Promise.all(["member1", "member2"].map(ready));
    assert.deepEqual(readyAfter.map((c) => c?.lastTransitionTime), readyBefore.map((c) => c?.lastTransitionTime), "neither cluster was marked NotReady across the restart");
    assert.equal(split((await h.binding("shared")) as BindingJson), "member1=2 member2=2");
    await sameObjects("after the control plane restarted");
  });
});
