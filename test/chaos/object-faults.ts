// The faults a person makes with kubectl: a ResourceBinding deleted in the control cluster, the
// chaos namespace deleted in a member, one of Flotilla's member objects copied under another name or
// deleted and applied again (labels and all). None is undone here; what happens next is Flotilla's
// business.
import type { KubeConfig } from "@kubernetes/client-node";
import { LABELS } from "../../shared/api/types.ts";
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

/** An object a user made in a member: Flotilla must never delete it (issue 37). */
export interface UserObject {
  member: string;
  /** templateId-style: "ConfigMap/<name>". */
  id: string;
  /** Empty for a re-creation the agent beat (it brought its own object back first). */
  uid: string;
  /** When the user made it (Date.now()). */
  atMs: number;
  how: "copy" | "recreate";
}

interface Labelled {
  metadata: { name: string; uid: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  data?: Record<string, string>;
}

/** The member's ConfigMaps that carry Flotilla's label now, sorted; the one at `pick` ([0, 1)). */
async function pickCopy(rest: KubeRest, pick: number): Promise<Labelled | undefined> {
  const list = await rest.request<{ items?: Labelled[] }>("GET", `/api/v1/namespaces/${NAMESPACE}/configmaps`, { query: { labelSelector: LABELS.work }, timeoutMs: 10_000 });
  const items = (list.items ?? []).filter((o) => !o.metadata.name.includes(USER_COPY)).sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  return items[Math.floor(pick * items.length)];
}

/** The part of a user copy's name that marks it (the judge and the end-of-run check know it by this). */
export const USER_COPY = "-usercopy";

const userManifest = (o: Labelled, name: string) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: NAMESPACE, ...(o.metadata.labels ? { labels: o.metadata.labels } : {}), ...(o.metadata.annotations ? { annotations: o.metadata.annotations } : {}) },
  ...(o.data ? { data: o.data } : {}),
});

/**
 * `kubectl get configmap X -o yaml | sed s/X/X-usercopyN/ | kubectl apply -f -` in a member: a copy
 * of one of Flotilla's ConfigMaps under another name, Flotilla's label and annotations included.
 */
export async function copyMemberObject(kc: KubeConfig, member: string, pick: number, n: number): Promise<UserObject | undefined> {
  const rest = new KubeRest(kc);
  try {
    const o = await pickCopy(rest, pick);
    if (o === undefined) return undefined;
    const name = `${o.metadata.name}${USER_COPY}${n}`;
    const made = await rest.request<Labelled>("POST", `/api/v1/namespaces/${NAMESPACE}/configmaps`, { body: userManifest(o, name), timeoutMs: 10_000 });
    return { member, id: `ConfigMap/${name}`, uid: made.metadata.uid, atMs: Date.now(), how: "copy" };
  } finally {
    rest.close();
  }
}

/**
 * A user deletes one of Flotilla's ConfigMaps in a member and applies it again as it was (a backup
 * restored): the same name, labels and annotations, another object (a new uid).
 */
export async function recreateMemberObject(kc: KubeConfig, member: string, pick: number): Promise<UserObject | undefined> {
  const rest = new KubeRest(kc);
  try {
    const o = await pickCopy(rest, pick);
    if (o === undefined) return undefined;
    const atMs = Date.now();
    const path = `/api/v1/namespaces/${NAMESPACE}/configmaps/${o.metadata.name}`;
    await rest.delete(path, { preconditions: { uid: o.metadata.uid } });
    // The agent may bring its object back before the user's apply: the user's deletion stands, the object is Flotilla's (no uid of the user's).
    const made = await rest.request<Labelled>("POST", `/api/v1/namespaces/${NAMESPACE}/configmaps`, { body: userManifest(o, o.metadata.name), timeoutMs: 10_000 }).catch((err: unknown) => (isKubeStatus(err, 409) ? undefined : Promise.reject(err)));
    return { member, id: `ConfigMap/${o.metadata.name}`, uid: made?.metadata.uid ?? "", atMs, how: "recreate" };
  } finally {
    rest.close();
  }
}
