// The faults a person makes with kubectl delete: a ResourceBinding in the control cluster, the
// chaos namespace in a member. Neither is undone here; what happens next is Flotilla's business.
import type { KubeConfig } from "@kubernetes/client-node";
import { isKubeStatus, KubeRest } from "../../shared/kube-rest.ts";
import { NAMESPACE } from "./churn-model.ts";

/** How long the injector waits for a deleted member namespace to be gone before it calls it stuck. */
export const NAMESPACE_GONE_TIMEOUT_MS = 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `kubectl delete resourcebinding <one of them> -n chaos`: the binding at `pick` (a fraction, [0, 1))
 * of the sorted names there are now; its finalizers are left as they are. Undefined when there is none.
 */
export async function deleteBinding(rest: KubeRest, pick: number): Promise<string | undefined> {
  const path = `/apis/flotilla.dev/v1alpha1/namespaces/${NAMESPACE}/resourcebindings`;
  const list = await rest.request<{ items?: { metadata: { name: string } }[] }>("GET", path, { timeoutMs: 10_000 });
  const names = (list.items ?? []).map((b) => b.metadata.name).sort();
  const name = names[Math.floor(pick * names.length)];
  if (name === undefined) return undefined;
  await rest.delete(`${path}/${name}`).catch((err: unknown) => (isKubeStatus(err, 404) ? undefined : Promise.reject(err)));
  return name;
}

/**
 * `kubectl delete namespace chaos` in a member; resolves once the namespace is gone or replaced by
 * a new one (or after NAMESPACE_GONE_TIMEOUT_MS, still terminating): the window in which
 * Kubernetes deleted what it held.
 */
export async function deleteMemberNamespace(kc: KubeConfig): Promise<{ fromMs: number; goneMs: number; gone: boolean }> {
  const rest = new KubeRest(kc);
  const path = `/api/v1/namespaces/${NAMESPACE}`;
  const uidNow = async (): Promise<string | undefined> =>
    (await rest.request<{ metadata: { uid: string } }>("GET", path, { timeoutMs: 10_000 }).catch((err: unknown) => (isKubeStatus(err, 404) ? undefined : Promise.reject(err))))?.metadata.uid;
  try {
    const uid = await uidNow();
    if (uid === undefined) throw new Error(`the member has no namespace ${NAMESPACE}`);
    const fromMs = Date.now();
    await rest.delete(path);
    while (Date.now() - fromMs < NAMESPACE_GONE_TIMEOUT_MS) {
      const now: string | undefined = await uidNow().catch((): string => uid);
      if (now !== uid) return { fromMs, goneMs: Date.now(), gone: true };
      await sleep(100);
    }
    return { fromMs, goneMs: Date.now(), gone: false };
  } finally {
    rest.close();
  }
}
