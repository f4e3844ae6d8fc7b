// A Work as the hub sends it (a WorkUpsert) and as the runner holds it: the manifests parsed and
// checked once, on arrival. Pure.
import type { KubeObject } from "../../shared/api/types.ts";
import type { WorkUpsert } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { manifestsProblem } from "../apply/work-manifests.ts";

/** A Work as the hub sent it. */
export interface DesiredWork {
  key: string;
  hash: string;
  manifests: KubeObject[];
  conflictResolution: string;
  /** The binding's preserveResourcesOnDeletion, kept with the record (judge/preserve-decision.ts). */
  preserve?: boolean;
}

/** What the runner holds for an upsert, or why the agent cannot use it (reported, and what it applied is kept). */
export type ReceivedWork = { work: DesiredWork } | { problem: string; logged: string; err?: string };

const NOT_JSON = "the hub sent a manifest that is not valid JSON";

/** Parses and checks an upsert's manifests. */
export function receivedWork(u: WorkUpsert): ReceivedWork {
  let manifests: KubeObject[];
  try {
    manifests = u.manifests.map((b) => JSON.parse(Buffer.from(b).toString("utf8")) as KubeObject);
  } catch (err) {
    return { problem: NOT_JSON, logged: "the hub sent a manifest that is not JSON; ignoring the work", err: String(err) };
  }
  const problem = manifestsProblem(manifests);
  if (problem !== undefined) return { problem, logged: problem };
  return { work: { key: u.workKey, hash: u.contentHash, manifests, conflictResolution: u.conflictResolution || "Abort", preserve: u.preserveResourcesOnDeletion } };
}
