// The member-namespace fault on a real member: the window it reports holds the deletions the member
// watch sees, and the judge counts them as taken with the namespace, not as Flotilla's.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { LABELS } from "../../shared/api/types.ts";
import { KubeRest } from "../../shared/kube-rest.ts";
import { type Cluster, startCluster } from "../env/cluster.ts";
import { waitFor } from "../env/wait.ts";
import { NAMESPACE } from "./churn-model.ts";
import { judgeDeletions } from "./deletion-judge.ts";
import { MemberWatch } from "./member-watch.ts";
import { deleteMemberNamespace } from "./object-faults.ts";

let cluster: Cluster | undefined;
let watch: MemberWatch | undefined;
let dir = "";
after(async () => {
  watch?.stop();
  await cluster?.stop();
  if (dir !== "") await rm(dir, { recursive: true, force: true });
});

describe("deleteMemberNamespace", () => {
  it("reports the window in which Kubernetes took the namespace's copies; the judge counts them apart and sees whether they are back", async () => {
    dir = await mkdtemp(join(tmpdir(), "flotilla-chaos-ns-"));
    cluster = await startCluster({ name: "member1", role: "member", dir: join(dir, "member1"), nodes: 1 });
    const rest = new KubeRest(cluster.kubeConfig());
    try {
      await rest.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } } });
      for (const name of ["configmap0", "configmap1"]) {
        await rest.request("POST", `/api/v1/namespaces/${NAMESPACE}/configmaps`, { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { [LABELS.work]: "w" } } } });
      }
      const w = new MemberWatch("member1", cluster.kubeConfig());
      watch = w;
      w.start();
      await waitFor(async () => w.size() === 2, { what: "the watch to hold both copies", timeoutMs: 30_000, intervalMs: 100 });
      const history = [{ atMs: Date.now() - 1_000, wanted: new Map([["ConfigMap/configmap0", new Set(["member1"])], ["ConfigMap/configmap1", new Set(["member1"])]]) }];

      const window = await deleteMemberNamespace(cluster.kubeConfig());
      assert.ok(window.gone, "the namespace went within the timeout");
      await waitFor(async () => w.deletions().length === 2, { what: "the watch to see both copies go", timeoutMs: 10_000, intervalMs: 100 });
      const namespaces = [{ member: "member1", fromMs: window.fromMs, goneMs: window.goneMs }];
      const judged = judgeDeletions(history, w.deletions(), namespaces, (_, id) => w.holds(id));
      assert.equal(judged.unintended.length, 0, JSON.stringify(judged));
      assert.equal(judged.withNamespace.length, 2);
      assert.deepEqual(judged.notBack.map((d) => d.id).sort(), ["ConfigMap/configmap0", "ConfigMap/configmap1"], "nothing brought them back here");

      // One comes back (as an agent would bring it): only the other is still not back.
      await rest.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } } });
      await rest.request("POST", `/api/v1/namespaces/${NAMESPACE}/configmaps`, { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "configmap0", labels: { [LABELS.work]: "w" } } } });
      await waitFor(async () => w.holds("ConfigMap/configmap0"), { what: "the watch to see configmap0 back", timeoutMs: 30_000, intervalMs: 100 });
      assert.deepEqual(judgeDeletions(history, w.deletions(), namespaces, (_, id) => w.holds(id)).notBack.map((d) => d.id), ["ConfigMap/configmap1"]);
    } finally {
      rest.close();
    }
  });
});
