// How the chaos run writes to the control cluster, for the churn driver and the fault injector
// alike: server-side apply (or delete) retried until the apiserver answers, since a fault may have
// it down; and one lock around each churn operation (its writes and the model's update), so a
// policy the injector deletes and creates again is never overwritten meanwhile with an older spec,
// and an etcd snapshot or restore sees the control cluster and the model agree.
import { KubeError, type KubeRest, isKubeStatus, objectPath, type ResourceInfo } from "../../shared/kube-rest.ts";
import type { ChurnModel, Group } from "./churn-model.ts";
import { WATCHED } from "./member-watch.ts";

export const FIELD_MANAGER = "chaos-churn";

export type Manifest = { kind: string; metadata: { name: string; namespace?: string } };

const RESOURCES: Record<string, ResourceInfo> = {
  ...Object.fromEntries(WATCHED.map((r) => [r.kind, r])),
  PropagationPolicy: { apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", plural: "propagationpolicies", namespaced: true },
  OverridePolicy: { apiVersion: "flotilla.dev/v1alpha1", kind: "OverridePolicy", plural: "overridepolicies", namespaced: true },
  ClusterPropagationPolicy: { apiVersion: "flotilla.dev/v1alpha1", kind: "ClusterPropagationPolicy", plural: "clusterpropagationpolicies", namespaced: false },
  CustomResourceDefinition: { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", plural: "customresourcedefinitions", namespaced: false },
  Namespace: { apiVersion: "v1", kind: "Namespace", plural: "namespaces", namespaced: false },
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Applies (or deletes) until the control cluster answers; returns the retries it took. */
export function persist(rest: KubeRest, m: Manifest, remove = false): Promise<number> {
  const r = RESOURCES[m.kind] as ResourceInfo;
  const path = objectPath(r, m.metadata.namespace, m.metadata.name);
  return untilAnswered(`${m.kind} ${m.metadata.name}`, () =>
    remove ? rest.delete(path).catch((e: unknown) => (isKubeStatus(e, 404) ? undefined : Promise.reject(e))) : rest.apply(path, m, FIELD_MANAGER),
  );
}

/**
 * `kubectl label cluster <member> ...`: a merge patch of the member's Cluster, retried like any
 * other write; a Cluster not there (404: a member between registrations) is waited for.
 */
export function labelCluster(rest: KubeRest, member: string, patch: unknown): Promise<number> {
  return untilAnswered(`Cluster ${member}`, () => rest.mergePatch(`/apis/flotilla.dev/v1alpha1/clusters/${member}`, patch, FIELD_MANAGER));
}

/** Runs a write until the control cluster takes it; returns the retries it took. */
async function untilAnswered(what: string, write: () => Promise<unknown>): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    try {
      await write();
      return attempt;
    } catch (err) {
      // Down (no status), overloaded, conflicting, or a CRD's kind not served yet: try again.
      // Anything else is the driver's own mistake: fail loudly.
      const transient = !(err instanceof KubeError) || isKubeStatus(err, 404, 409, 429, 500, 503, 504);
      if (!transient || attempt > 600) throw new Error(`${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      await sleep(500);
    }
  }
}

/** Runs one function at a time, in call order. */
export class Lock {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** What the fault injector may do to the control cluster's objects. */
export interface ControlAccess {
  rest: KubeRest;
  /** The PropagationPolicy of this name as the churn model holds it now. */
  policyManifest(name: string): Manifest | undefined;
  /** The lock the churn takes around each operation. */
  churn: Lock;
  /** The churn model now (take it under the lock). */
  model(): ChurnModel;
  /** After an etcd restore: the model goes back to what it was at the snapshot, and that is the intent from now on. */
  rewind(to: ChurnModel): void;
  /** How many Flotilla copies a member's chaos namespace holds now (of one group's templates), as the member watch counts them. */
  memberCopies(member: string, group?: Group): number;
}
