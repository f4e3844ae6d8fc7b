import { KubeConfig } from "@kubernetes/client-node";

/** A KubeConfig from a file, else the in-cluster service account, else the default locations. */
export function loadKubeConfig(path: string | undefined): KubeConfig {
  const kc = new KubeConfig();
  if (path) kc.loadFromFile(path);
  else if (process.env.KUBERNETES_SERVICE_HOST) kc.loadFromCluster();
  else kc.loadFromDefault();
  if (kc.getCurrentCluster() === null) throw new Error(`no cluster in the kubeconfig${path ? ` ${path}` : ""}`);
  return kc;
}
