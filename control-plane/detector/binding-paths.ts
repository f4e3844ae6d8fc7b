// Where a binding is, and the one error a delete of it may ignore.
import { RESOURCES } from "../../shared/api/resources.ts";
import type { ResourceBinding } from "../../shared/api/types.ts";
import { isKubeStatus, objectPath } from "../../shared/kube-rest.ts";

export function ignoreNotFound(err: unknown): void {
  if (!isKubeStatus(err, 404)) throw err;
}

export function bindingPath(b: ResourceBinding): string {
  const resource = b.metadata.namespace ? RESOURCES.resourceBinding : RESOURCES.clusterResourceBinding;
  return objectPath(resource, b.metadata.namespace, b.metadata.name ?? "");
}
