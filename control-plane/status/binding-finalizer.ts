// The status controller's last write on a binding: the release of its finalizer, at the version
// it judged on, so that a binding changed meanwhile is judged again instead.
import { RESOURCES } from "../../shared/api/resources.ts";
import type { ResourceBinding } from "../../shared/api/types.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { BINDING_FINALIZER } from "../scheduling/binding-spec.ts";

/** Removes Flotilla's finalizer from the binding at its resourceVersion; false when it held none (nothing written). */
export async function releaseBindingFinalizer(rest: KubeRest, binding: ResourceBinding): Promise<boolean> {
  const finalizers = binding.metadata.finalizers ?? [];
  if (!finalizers.includes(BINDING_FINALIZER)) return false;
  const resource = binding.metadata.namespace ? RESOURCES.resourceBinding : RESOURCES.clusterResourceBinding;
  await rest
    .mergePatch(objectPath(resource, binding.metadata.namespace, binding.metadata.name ?? ""), {
      metadata: { finalizers: finalizers.filter((f) => f !== BINDING_FINALIZER), resourceVersion: binding.metadata.resourceVersion },
    })
    .catch(ignoreNotFound);
  return true;
}

/** A write to an object that is gone meanwhile: nothing to do. */
export function ignoreNotFound(err: unknown): void {
  if (!isKubeStatus(err, 404)) throw err;
}
