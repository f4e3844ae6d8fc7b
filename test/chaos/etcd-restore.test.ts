// The etcd restore on a real control cluster: the state goes back to the snapshot, and a client
// that watched from a revision served before the restore gets 410 Gone (it must list again).
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { isKubeStatus, KubeRest } from "../../shared/kube-rest.ts";
import { type Cluster, startCluster } from "../env/cluster.ts";
import { restoreEtcd, snapshotEtcd } from "./etcd-restore.ts";

let cluster: Cluster | undefined;
let dir = "";
after(async () => {
  await cluster?.stop();
  if (dir !== "") await rm(dir, { recursive: true, force: true });
});

describe("restoreEtcd", () => {
  it("brings the control cluster back to the snapshot; a read at a revision served before the restore gets 410 Gone, as a watch from it does", async () => {
    dir = await mkdtemp(join(tmpdir(), "flotilla-etcd-restore-"));
    cluster = await startCluster({ name: "control", role: "control", dir: join(dir, "control") });
    const rest = new KubeRest(cluster.kubeConfig());
    const cm = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" }, data: { v: name } });
    const path = (name: string) => `/api/v1/namespaces/default/configmaps/${name}`;
    try {
      await rest.apply(path("before"), cm("before"), "test");
      const snapshot = await snapshotEtcd(cluster, join(dir, "snapshot"));
      await rest.apply(path("after"), cm("after"), "test");
      await rest.delete(path("before"));
      const seen = await rest.request<{ metadata: { resourceVersion: string } }>("GET", "/api/v1/namespaces/default/configmaps");

      const { revertedRevisions } = await restoreEtcd(cluster, snapshot);
      assert.ok(revertedRevisions > 0, `${revertedRevisions} revisions undone`);
      const names = (await rest.request<{ items: { metadata: { name: string } }[] }>("GET", "/api/v1/namespaces/default/configmaps")).items.map((i) => i.metadata.name);
      assert.ok(names.includes("before") && !names.includes("after"), `back at the snapshot: ${names.join(", ")}`);
      // A list from the revision a client saw before the restore is refused: it must list afresh.
      const stale = await rest
        .request("GET", "/api/v1/namespaces/default/configmaps", { query: { resourceVersion: seen.metadata.resourceVersion, resourceVersionMatch: "Exact" } })
        .then(() => "answered", (err: unknown) => (isKubeStatus(err, 410) ? "gone" : String(err)));
      assert.equal(stale, "gone");
      // And the cluster takes writes again.
      await rest.apply(path("later"), cm("later"), "test");
    } finally {
      rest.close();
    }
  });
});
