// The binding controller's write of a template's binding. A new binding (the informer holds none
// under any name) is handed to caches.bindingsAhead for the write's duration, so that its Works
// are rendered and sent while it is written rather than after its watch event (issue 42). A write
// that fails takes it back: the Works render again from what the informer holds, and a Work sent
// meanwhile stays in its member (a missing binding is no intent to delete: DESIGN §11).
import type { ResourceBinding } from "../../shared/api/types.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import type { Caches } from "../caches/caches.ts";

export async function writeBinding(
  rest: KubeRest,
  path: string,
  desired: ResourceBinding,
  fieldManager: string,
  ahead?: { bindings: Caches["bindingsAhead"]; key: string; seen: () => ResourceBinding | undefined },
): Promise<void> {
  const write = ahead?.bindings.writing(ahead.key, desired);
  try {
    const applied = await rest.apply<ResourceBinding | undefined>(path, desired, fieldManager);
    // The informer may have shown the write before its answer came: then it ends here.
    if (ahead !== undefined && write !== undefined) ahead.bindings.written(ahead.key, write, applied?.metadata?.resourceVersion, ahead.seen());
  } catch (err) {
    if (ahead !== undefined && write !== undefined) ahead.bindings.failed(ahead.key, write);
    throw err;
  }
}
