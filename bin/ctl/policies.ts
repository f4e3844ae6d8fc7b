// `flotillactl get pp|cpp|op|cop`: the policies in the control cluster, read with its kubeconfig
// (as kubectl would; the Admin API serves what the control plane computed, not what users wrote).
import { existsSync } from "node:fs";
import type { PropagationPolicy } from "../../shared/api/types.ts";
import type { FlagValues } from "../../shared/flags.ts";
import { KubeRest } from "../../shared/kube-rest.ts";
import { loadKubeConfig } from "../../shared/kubeconfig.ts";
import { controlKubeconfig } from "./accept.ts";

/** The policy kinds `get` lists, by plural; namespaced or not. */
export const POLICY_PLURALS: Readonly<Record<string, { kind: string; namespaced: boolean }>> = {
  propagationpolicies: { kind: "PropagationPolicy", namespaced: true },
  clusterpropagationpolicies: { kind: "ClusterPropagationPolicy", namespaced: false },
  overridepolicies: { kind: "OverridePolicy", namespaced: true },
  clusteroverridepolicies: { kind: "ClusterOverridePolicy", namespaced: false },
};

/** Lists one policy kind: in a namespace, or every one (namespace undefined). */
export async function listPolicies(flags: FlagValues, plural: string, namespace: string | undefined, timeoutMs: number): Promise<PropagationPolicy[]> {
  const kubeconfig = controlKubeconfig(flags);
  if (!existsSync(kubeconfig)) throw new Error(`no kubeconfig at ${kubeconfig}: pass --kubeconfig with the control cluster's`);
  const rest = new KubeRest(loadKubeConfig(kubeconfig), { maxSockets: 1 });
  try {
    const scope = namespace === undefined || namespace === "" ? "" : `namespaces/${encodeURIComponent(namespace)}/`;
    const list = await rest.request<{ items: PropagationPolicy[] }>("GET", `/apis/flotilla.dev/v1alpha1/${scope}${plural}`, { timeoutMs });
    return list.items;
  } finally {
    rest.close();
  }
}
