// Issue 42's write gate, shared by the e2e files that hold Deployments to their control writes
// (perf-gate.test.ts, peer-status-ha.test.ts): T Deployments taken to Available in every member,
// then the control cluster's writes counted by its own apiserver once they stop.
import { RESOURCES } from "../../shared/api/resources.ts";
import type { ResourceBinding } from "../../shared/api/types.ts";
import { collectionPath, type KubeRest, type ResourceInfo } from "../../shared/kube-rest.ts";
import { MAX_SETTLE_MS } from "../../control-plane/status/status-settle.ts";
import { apiserverWrites, diffWrites, formatWrites, isBackgroundWrite, totalWrites, type WriteCounts } from "../bench/apiserver-metrics.ts";
import { waitFor } from "../env/wait.ts";

/** The goal: a binding, its status, the template's status. */
export const WRITES_PER_TEMPLATE_GOAL = 3;

const DEPLOYMENTS: ResourceInfo = { apiVersion: "apps/v1", kind: "Deployment", plural: "deployments", namespaced: true };

interface DeploymentJson {
  metadata: { name: string };
  status?: { availableReplicas?: number };
}

/** A one-replica Deployment (kwok runs its pod). */
export const deployment = (name: string, namespace: string) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, namespace },
  spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "main", image: "nginx:1.27" }] } } },
});

/**
 * member2's copies become Available 2 s after member1's (minReadySeconds), as members do: one
 * change's answers then arrive over seconds, and must still make one status write.
 */
export const member2Later = (namespace: string) => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "OverridePolicy",
  metadata: { name: "member2-later", namespace },
  spec: {
    resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment" }],
    overrideRules: [{ targetCluster: { clusterNames: ["member2"] }, overriders: { plaintext: [{ path: "/spec/minReadySeconds", operator: "add", value: 2 }] } }],
  },
});

/**
 * Creates `web-0` … `web-{t-1}` in the namespace, waits until each template sums one available
 * replica per member and its binding is FullyApplied, then until the control cluster's writes
 * (but the background's) stop; answers the writes per template besides the templates themselves.
 */
export async function writesToAvailable(control: KubeRest, namespace: string, t: number, members: number): Promise<{ perTemplate: number; writes: string }> {
  const before = await apiserverWrites(control);
  for (let i = 0; i < t; i++) await control.request("POST", collectionPath(DEPLOYMENTS, namespace), { body: deployment(`web-${i}`, namespace) });
  await waitFor(
    async () => {
      const templates = await control.get<{ items: DeploymentJson[] }>(collectionPath(DEPLOYMENTS, namespace));
      const bindings = await control.get<{ items: ResourceBinding[] }>(collectionPath(RESOURCES.resourceBinding, namespace));
      const summed = templates.items.filter((d) => d.status?.availableReplicas === members).length;
      const applied = bindings.items.filter((b) => b.status?.conditions?.some((c) => c.type === "FullyApplied" && c.status === "True")).length;
      return summed === t && applied === t ? true : undefined;
    },
    { what: `${t} templates summed (availableReplicas ${members}) and their bindings FullyApplied`, timeoutMs: 90_000, intervalMs: 250 },
  );
  // Then quiet: a write that a settle wait still holds would come within MAX_SETTLE_MS.
  let last = "";
  let writes: WriteCounts = new Map();
  await waitFor(
    async () => {
      writes = diffWrites(before, await apiserverWrites(control));
      const now = formatWrites(new Map([...writes].filter(([k]) => !isBackgroundWrite(k))));
      const quiet = now === last;
      last = now;
      return quiet ? true : undefined;
    },
    { what: "the control cluster's writes to stop", timeoutMs: 60_000, intervalMs: MAX_SETTLE_MS + 1_000 },
  );
  return { perTemplate: (totalWrites(writes, (k) => !isBackgroundWrite(k)) - t) / t, writes: last };
}
