// `flotillactl deletions list|approve|reject`: the deletions the blast-radius brake holds (DESIGN
// §11). What is held shows on the bindings (aggregatedStatus entries with DeletionHeld); a
// decision is a time written to the Cluster's annotation, which the replica holding that
// cluster's agent stream acts on. Both go straight to the control cluster, as `accept` does.
import { existsSync } from "node:fs";
import { LABELS, type ResourceBinding } from "../../shared/api/types.ts";
import { heldDeletions, type HeldDeletion } from "../../shared/held-deletions.ts";
import type { FlagValues } from "../../shared/flags.ts";
import { isKubeStatus, KubeRest } from "../../shared/kube-rest.ts";
import { loadKubeConfig } from "../../shared/kubeconfig.ts";
import { controlKubeconfig } from "./accept.ts";

async function withControl<T>(flags: FlagValues, fn: (rest: KubeRest) => Promise<T>): Promise<T> {
  const kubeconfig = controlKubeconfig(flags);
  if (!existsSync(kubeconfig)) throw new Error(`no kubeconfig at ${kubeconfig}: pass --kubeconfig with the control cluster's`);
  const rest = new KubeRest(loadKubeConfig(kubeconfig), { maxSockets: 1 });
  try {
    return await fn(rest);
  } finally {
    rest.close();
  }
}

async function fetchHeld(rest: KubeRest, cluster: string | undefined, timeoutMs: number): Promise<HeldDeletion[]> {
  const lists = await Promise.all(
    ["resourcebindings", "clusterresourcebindings"].map((plural) => rest.request<{ items: ResourceBinding[] }>("GET", `/apis/flotilla.dev/v1alpha1/${plural}`, { timeoutMs })),
  );
  return heldDeletions(lists.flatMap((l) => l.items), cluster);
}

/** Every held deletion, of one cluster when given. */
export function listHeldDeletions(flags: FlagValues, cluster: string | undefined, timeoutMs: number): Promise<HeldDeletion[]> {
  return withControl(flags, (rest) => fetchHeld(rest, cluster, timeoutMs));
}

/** Writes a person's decision on the cluster's held deletions; says what it applies to. */
export function decideHeldDeletions(flags: FlagValues, cluster: string, decision: "approve" | "reject", timeoutMs: number): Promise<string> {
  return withControl(flags, async (rest) => {
    const path = `/apis/flotilla.dev/v1alpha1/clusters/${encodeURIComponent(cluster)}`;
    const held = (await fetchHeld(rest, cluster, timeoutMs)).length;
    const annotation = decision === "approve" ? LABELS.deletionsApproved : LABELS.deletionsRejected;
    try {
      await rest.request("PATCH", path, { body: { metadata: { annotations: { [annotation]: new Date().toISOString() } } }, contentType: "application/merge-patch+json", timeoutMs });
    } catch (err) {
      if (isKubeStatus(err, 404)) throw new Error(`NOT_FOUND: cluster ${JSON.stringify(cluster)} is not registered (no Cluster object in the control cluster)`, { cause: err });
      throw err;
    }
    const what = held === 1 ? "1 held deletion" : `${held} held deletions`;
    return decision === "approve"
      ? `approved ${what} on ${cluster}: they are sent now, and the cluster's window starts again`
      : `rejected ${what} on ${cluster}: the objects stay in the member, no longer managed by Flotilla`;
  });
}
