// A binding the control plane deletes on purpose says why first (LABELS.releasedBecause): only such
// a deletion removes member objects while the template lives (hub/deletion-intent.ts). One deleted
// any other way (by hand, lost in a restore) removes nothing and is made again.
import { LABELS, type ResourceBinding } from "../../shared/api/types.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import { ignoreNotFound } from "./binding-paths.ts";

/** Deletes a binding on purpose, saying why on it first. */
export async function releaseBinding(rest: KubeRest, path: string, reason: string): Promise<void> {
  await rest.mergePatch(path, { metadata: { annotations: { [LABELS.releasedBecause]: reason } } }).catch(ignoreNotFound);
  await rest.delete(path).then(() => undefined, ignoreNotFound);
}

/**
 * A binding released on purpose (a dependency no workload needed) whose template is claimed or
 * required again before it is gone: the reason comes off, so its removals stop, and the binding
 * goes as one deleted by hand, removing nothing more (issue 37, found by the deletion model).
 */
export async function unreleaseBinding(rest: KubeRest, path: string, b: ResourceBinding): Promise<void> {
  if (b.metadata.annotations?.[LABELS.releasedBecause] === undefined) return;
  await rest.mergePatch(path, { metadata: { annotations: { [LABELS.releasedBecause]: null } } }).catch(ignoreNotFound);
}
