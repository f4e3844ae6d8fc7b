// `flotillactl accept <cluster>`: an admin accepts a new member (OCM's hubAcceptsClient). With
// --require-acceptance the control plane sends a Cluster nothing until then. It is written to the
// Cluster in the control cluster, where the control plane reads it.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Cluster } from "../../shared/api/types.ts";
import type { FlagValues } from "../../shared/flags.ts";
import { isKubeStatus, KubeRest } from "../../shared/kube-rest.ts";
import { loadKubeConfig } from "../../shared/kubeconfig.ts";

/** The control cluster's kubeconfig: --kubeconfig, else the local fleet's `<state-dir>/control.kubeconfig`. */
export function controlKubeconfig(flags: FlagValues): string {
  const given = flags.kubeconfig;
  return typeof given === "string" && given !== "" ? given : join(String(flags["state-dir"] ?? ".flotilla"), "control.kubeconfig");
}

/** Sets spec.hubAcceptsClient on the Cluster; says what changed. */
export async function acceptCluster(flags: FlagValues, cluster: string, timeoutMs: number): Promise<string> {
  const path = `/apis/flotilla.dev/v1alpha1/clusters/${encodeURIComponent(cluster)}`;
  const kubeconfig = controlKubeconfig(flags);
  if (!existsSync(kubeconfig)) throw new Error(`no kubeconfig at ${kubeconfig}: pass --kubeconfig with the control cluster's`);
  const rest = new KubeRest(loadKubeConfig(kubeconfig), { maxSockets: 1 });
  try {
    const before = await rest.request<Cluster>("GET", path, { timeoutMs });
    if (before.spec?.hubAcceptsClient === true) return `cluster ${cluster} was already accepted`;
    await rest.request("PATCH", path, { body: { spec: { hubAcceptsClient: true } }, contentType: "application/merge-patch+json", timeoutMs });
    return `cluster ${cluster} accepted: it receives its Work now`;
  } catch (err) {
    if (isKubeStatus(err, 404)) throw new Error(`NOT_FOUND: cluster ${JSON.stringify(cluster)} is not registered (no Cluster object in the control cluster)`, { cause: err });
    throw err;
  } finally {
    rest.close();
  }
}
