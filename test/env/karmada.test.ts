// Karmada v1.18.0 as plain processes: a Deployment and a PropagationPolicy applied to Karmada's
// apiserver reach two pull-mode members (one karmada-agent each) and become Available there.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type V1Deployment } from "@kubernetes/client-node";
import { binaryPath, ensureBinaries, ensureKarmadaBinaries, KARMADA_BINARY_NAMES } from "./binaries.ts";
import { type Cluster, startCluster } from "./cluster.ts";
import { memberNames } from "./fleet.ts";
import { type Karmada, startKarmada } from "./karmada.ts";
import { isProcessAlive } from "./managed-process.ts";
import { waitFor } from "./wait.ts";
import { deploymentJson, placementPolicyJson } from "../e2e/helpers.ts";

const run = promisify(execFile);
const ns = "demo";
/** A cold build of the Karmada group takes tens of minutes on 2 cores. */
const buildTimeoutMs = 90 * 60_000;

describe("test/env Karmada (pull mode)", () => {
  let root: string;
  let karmadaBinDir: string;
  let members: Cluster[] = [];
  let karmada: Karmada | undefined;

  before(
    async () => {
      karmadaBinDir = await ensureKarmadaBinaries();
      const binDir = await ensureBinaries();
      root = await mkdtemp(join(tmpdir(), "flotilla-karmada-"));
      members = await Promise.all(
        memberNames(2).map((name) => startCluster({ name, role: "member", dir: join(root, name), binDir, nodes: 1 })),
      );
      karmada = await startKarmada({ members, dir: join(root, "karmada"), binDir, karmadaBinDir });
    },
    { timeout: buildTimeoutMs },
  );

  after(async () => {
    await karmada?.stop();
    await Promise.all(members.map((m) => m.stop()));
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  });

  it("builds Karmada v1.18.0 into its own cache entry, with its CRDs and webhook configurations", async () => {
    for (const name of KARMADA_BINARY_NAMES) assert.ok(existsSync(binaryPath(karmadaBinDir, name)), name);
    assert.ok(existsSync(join(karmadaBinDir, "karmada-crds", "bases", "policy", "policy.karmada.io_propagationpolicies.yaml")));
    assert.ok(existsSync(join(karmadaBinDir, "karmada-crds", "webhook-configuration.yaml")));
    assert.notEqual(karmadaBinDir, await ensureBinaries());
    const { stdout } = await run(binaryPath(karmadaBinDir, "karmada-agent"), ["version"]);
    assert.match(stdout, /GitVersion:"v1\.18\.0"/);
  });

  it("registers each member as a Pull-mode Cluster through its own agent", async () => {
    const k = karmada as Karmada;
    const api = k.kubeConfig().makeApiClient(CustomObjectsApi);
    for (const member of members) {
      const cluster = (await api.getClusterCustomObject({ group: "cluster.karmada.io", version: "v1alpha1", plural: "clusters", name: member.name })) as {
        spec: { syncMode: string; apiEndpoint: string; id?: string };
      };
      assert.equal(cluster.spec.syncMode, "Pull", member.name);
      assert.equal(cluster.spec.apiEndpoint, member.server, member.name);
      assert.ok(k.agents.get(member.name)?.running, `${member.name}'s agent runs`);
    }
  });

  it("propagates a Deployment to both members by a PropagationPolicy, Available there, with its status aggregated", async () => {
    const kc = (karmada as Karmada).kubeConfig();
    await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: ns } } });
    await kc.makeApiClient(AppsV1Api).createNamespacedDeployment({ namespace: ns, body: JSON.parse(deploymentJson("web", ns, 2)) as V1Deployment });
    // Flotilla's PropagationPolicy has Karmada's fields: only the API group differs.
    const policy = JSON.parse(placementPolicyJson("web", ns, members.map((m) => m.name), { replicaScheduling: { replicaSchedulingType: "Duplicated" } })) as object;
    await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group: "policy.karmada.io",
      version: "v1alpha1",
      namespace: ns,
      plural: "propagationpolicies",
      body: { ...policy, apiVersion: "policy.karmada.io/v1alpha1" },
    });

    for (const member of members) {
      const apps = member.kubeConfig().makeApiClient(AppsV1Api);
      let last: V1Deployment | undefined;
      await waitFor(
        async () => {
          last = await apps.readNamespacedDeployment({ name: "web", namespace: ns });
          return last.status?.conditions?.some((c) => c.type === "Available" && c.status === "True") && last.status.readyReplicas === 2;
        },
        { what: `Deployment web Available with 2 ready replicas in ${member.name}`, timeoutMs: 180_000, intervalMs: 500 },
      ).catch((err: unknown) => {
        throw new Error(`${(err as Error).message}; last status ${JSON.stringify(last?.status)}`, { cause: err });
      });
      assert.equal(last?.spec?.replicas, 2, `${member.name} runs the template's replicas (Duplicated)`);
    }

    // Karmada's binding names both members, and the template's status sums theirs.
    const binding = (await kc.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: "work.karmada.io",
      version: "v1alpha2",
      namespace: ns,
      plural: "resourcebindings",
      name: "web-deployment",
    })) as { spec: { clusters?: { name: string }[] } };
    assert.deepEqual((binding.spec.clusters ?? []).map((c) => c.name).sort(), members.map((m) => m.name));
    await waitFor(
      async () => (await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: "web", namespace: ns })).status?.readyReplicas === 4,
      { what: "the template's status aggregated from both members (4 ready replicas)", timeoutMs: 60_000, intervalMs: 500 },
    );
  });

  it("stops every Karmada process and removes its directory", async () => {
    const k = karmada as Karmada;
    const pids = k.processes.map((p) => p.pid);
    await k.stop();
    for (const pid of pids) assert.equal(isProcessAlive(pid), false, `pid ${pid} is gone`);
    assert.equal(existsSync(k.dir), false);
    await k.stop(); // idempotent
  });
});
