// Server-side apply that only creates (issue 25): the agent's GET before each create is gone for
// objects its watch cache says are not Flotilla's. A `metadata.resourceVersion` in an apply
// configuration is a precondition the apiserver checks only against an existing object: creating
// ignores it, and an existing object, whose resourceVersion is never "1" (etcd's first revision,
// before any write), makes the apply fail with 409 Conflict without changing anything. So an
// object that does exist unlabelled (someone else's, or one the cache has not seen yet) is never
// written by it: the caller reads it then and decides as before (apply-decision.ts).
// test/agent-create-only.test.ts checks the apiserver's side of this on a real one.
import type { KubeObject } from "../../shared/api/types.ts";

/** A resourceVersion no existing object has. */
export const NO_OBJECT_RESOURCE_VERSION = "1";

/** The apply configuration that creates `desired` or, when the object exists, is refused with 409. */
export function createOnly(desired: KubeObject): KubeObject {
  return { ...desired, metadata: { ...desired.metadata, resourceVersion: NO_OBJECT_RESOURCE_VERSION } };
}
