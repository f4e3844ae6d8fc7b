// Whether the agent may apply a manifest over what the member already has: pure.
import { adoptsFromPrevious } from "./adoption.ts";
import { foreign, OWNER_ANNOTATION } from "../judge/owner.ts";
import { type KubeObject, LABELS } from "../../shared/api/types.ts";
import { parseQuantity } from "../../shared/quantity.ts";

/**
 * On a member namespace the agent created itself for a Work's namespaced objects: it holds them
 * for Flotilla, so a Namespace template of that name takes it over (in whichever order the Works
 * apply, also when the namespace is created again after someone deleted it).
 */
export const AGENT_CREATED_ANNOTATION = "flotilla.dev/created-by-agent";

export type ApplyDecision =
  | { action: "apply" }
  | { action: "skip"; reason: "AlreadyExists" | "ManagedLabelFalse"; message: string };

/**
 * live: the member's object (undefined when absent); workLabel: the label value that marks
 * objects of this Work. An object labelled flotilla.dev/managed=false is never touched; an
 * object Flotilla did not create is taken over only with conflictResolution Overwrite, or when
 * the manifest asks to adopt what Karmada's or KubeFed's agent applied and live is that (adoption.ts).
 */
export function decideApply(live: KubeObject | undefined, workLabel: string, conflictResolution: string, owner?: string, manifest?: KubeObject): ApplyDecision {
  if (live === undefined) return { action: "apply" };
  const labels = live.metadata.labels ?? {};
  if (labels[LABELS.managed] === "false") {
    return { action: "skip", reason: "ManagedLabelFalse", message: `the member's object is labelled ${LABELS.managed}=false; Flotilla leaves it alone` };
  }
  // Another fleet's, or another cluster's agent's, object of the same Work key is not ours.
  const theirs = foreign(live, owner);
  if (labels[LABELS.work] === workLabel && !theirs) return { action: "apply" };
  if (conflictResolution === "Overwrite") return { action: "apply" };
  if (manifest !== undefined && !theirs && adoptsFromPrevious(manifest, live)) return { action: "apply" };
  const agentNamespace = live.apiVersion === "v1" && live.kind === "Namespace" && live.metadata.annotations?.[AGENT_CREATED_ANNOTATION] === "true";
  if (agentNamespace && labels[LABELS.work] === undefined) return { action: "apply" };
  const by = theirs ? `another Flotilla fleet or cluster (${live.metadata.annotations?.[OWNER_ANNOTATION] ?? ""})` : labels[LABELS.work] ? "another Flotilla Work" : "something other than Flotilla";
  return {
    action: "skip",
    reason: "AlreadyExists",
    message: `the member already has this object, created by ${by}; set conflictResolution: Overwrite in the policy to take it over`,
  };
}

/** Keys whose values are resource quantities ("1" and "1000m" are one value). */
const QUANTITY_PARENTS = new Set(["requests", "limits", "hard", "capacity", "allocatable", "overhead"]);

/**
 * Whether the member's object still says what Flotilla applied: every field of want is present in
 * have with the same value (have may hold more: defaults, status, other managers' fields). What
 * the apiserver normalises is not drift, so it never causes an apply loop: a zero value or an empty
 * list or map it leaves out, and a quantity it rewrites ("1" for 1000m, 1 for "1").
 */
export function containsFields(have: unknown, want: unknown, key = ""): boolean {
  if (want === undefined) return true;
  if (isZero(want) && (have === undefined || have === null)) return true;
  if (want === null || typeof want !== "object") return have === want;
  if (Array.isArray(want)) {
    if (!Array.isArray(have) || have.length !== want.length) return false;
    return want.every((w, i) => containsFields(have[i], w));
  }
  if (have === null || typeof have !== "object" || Array.isArray(have)) return false;
  const quantities = QUANTITY_PARENTS.has(key);
  return Object.entries(want).every(([k, v]) => {
    const h = (have as Record<string, unknown>)[k];
    return quantities && (typeof v === "string" || typeof v === "number") ? sameQuantity(h, v) : containsFields(h, v, k);
  });
}

/** Values Go's omitempty leaves out of what the apiserver returns. */
function isZero(v: unknown): boolean {
  if (v === null || v === false || v === 0 || v === "") return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === "object" && Object.keys(v as object).length === 0;
}

function sameQuantity(have: unknown, want: string | number): boolean {
  if (have === want) return true;
  if (typeof have !== "string" && typeof have !== "number") return false;
  try {
    return parseQuantity(String(have)) === parseQuantity(String(want));
  } catch {
    return false;
  }
}
