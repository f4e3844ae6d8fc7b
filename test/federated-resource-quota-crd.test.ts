// The FederatedResourceQuota CRD in a real control cluster (issue 26): Karmada's manifest applies
// with its apiVersion changed, and what Karmada's webhook refuses the apiserver refuses here, with a
// message naming the field, whether or not the control plane's webhook runs (the exact sums and the
// resource names are the webhook's: test/e2e/federated-resource-quota.test.ts).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { installCrds } from "../control-plane/crd-install/crds.ts";
import { binaryPath, ensureBinaries } from "./env/binaries.ts";
import { type Cluster, startCluster } from "./env/cluster.ts";

const exec = promisify(execFile);

const frq = (name: string, spec: unknown) => JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "FederatedResourceQuota", metadata: { name, namespace: "default" }, spec });

describe("the FederatedResourceQuota CRD in a real control cluster", () => {
  let control: Cluster;
  let kubectlPath: string;
  const apply = async (manifest: string): Promise<{ ok: boolean; out: string }> => {
    const run = exec(kubectlPath, ["--kubeconfig", control.kubeconfigPath, "apply", "-f", "-"]);
    run.child.stdin?.end(manifest);
    try {
      return { ok: true, out: (await run).stdout };
    } catch (err) {
      return { ok: false, out: String((err as { stderr?: string }).stderr ?? err) };
    }
  };

  before(async () => {
    kubectlPath = binaryPath(await ensureBinaries(), "kubectl");
    control = await startCluster({ name: "control", role: "control", dir: join(tmpdir(), `flotilla-frq-crd-${process.pid}`) });
    await installCrds(control.kubeConfig());
  });
  after(async () => {
    await control?.stop();
  });

  it("stores Karmada's shape: overall, staticAssignments of clusterName and hard, integers and strings", async () => {
    const res = await apply(frq("team-a", { overall: { cpu: "10", memory: "20Gi", pods: 100 }, staticAssignments: [{ clusterName: "member1", hard: { cpu: "4", memory: "8Gi" } }, { clusterName: "member2", hard: { cpu: "6" } }] }));
    assert.ok(res.ok, res.out);
    const got = JSON.parse((await exec(kubectlPath, ["--kubeconfig", control.kubeconfigPath, "get", "federatedresourcequota", "team-a", "-o", "json"])).stdout) as { spec: unknown };
    assert.deepEqual(got.spec, { overall: { cpu: "10", memory: "20Gi", pods: 100 }, staticAssignments: [{ clusterName: "member1", hard: { cpu: "4", memory: "8Gi" } }, { clusterName: "member2", hard: { cpu: "6" } }] });
  });

  const refused: { name: string; spec: unknown; message: RegExp }[] = [
    { name: "no overall", spec: { staticAssignments: [] }, message: /spec\.overall: Required value/ },
    { name: "a quantity that does not parse", spec: { overall: { cpu: "lots" } }, message: /spec\.overall\.cpu/ },
    { name: "a negative quantity", spec: { overall: { cpu: "-1" } }, message: /spec\.overall\.cpu: Invalid value: "-1": spec\.overall\.cpu in body should match/ },
    { name: "a cluster assigned twice", spec: { overall: { cpu: "10" }, staticAssignments: [{ clusterName: "member1", hard: { cpu: "1" } }, { clusterName: "member1", hard: { cpu: "2" } }] }, message: /spec\.staticAssignments\[1\]: Duplicate value/ },
    { name: "an assignment of a resource overall does not name", spec: { overall: { cpu: "10" }, staticAssignments: [{ clusterName: "member1", hard: { memory: "1Gi" } }] }, message: /every resource name must be in overall/ },
    { name: "an assignment without hard", spec: { overall: { cpu: "10" }, staticAssignments: [{ clusterName: "member1" }] }, message: /spec\.staticAssignments\[0\]\.hard: Required value/ },
  ];
  for (const c of refused) {
    it(`refuses ${c.name}, naming the field`, async () => {
      const res = await apply(frq(`bad-${refused.indexOf(c)}`, c.spec));
      assert.equal(res.ok, false, res.out);
      assert.match(res.out, c.message);
    });
  }

});
