// A template's revision for progressive rollout (issue 23): the content hash of the template as
// rendering reads it (the caller passes it cleaned: rendering/clean-template.ts), its replicas left
// out. Scaling (a FederatedHPA, a user's kubectl scale) is no rollout, as a Deployment's
// pod-template-hash leaves its replicas out. Pure.
import type { KubeObject } from "../../shared/api/types.ts";
import { contentHash } from "../../shared/content-hash.ts";
import type { KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import { reviseForMember } from "../../shared/interpreter/native/adapter.ts";

/** The revision of a cleaned template; a customization's ReviseReplica may throw (InterpreterError). */
export function templateRevision(cleaned: KubeObject, interpreter?: KindInterpreter): string {
  return contentHash(reviseForMember(cleaned, 0, undefined, interpreter));
}
