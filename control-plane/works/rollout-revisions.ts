// What a progressive rollout (issue 23) tells the Works: the template's revision now, and the
// clusters told to run another one. Pure: the work cache and the leader's rollout controller read
// a binding the same way, so every replica renders each cluster at the revision its state names.
import type { KubeObject, ResourceBinding } from "../../shared/api/types.ts";
import type { KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import { cleanTemplate } from "../rendering/clean-template.ts";
import { templateRevision } from "../rollout/revision.ts";

/** The template's revision (its cleaned copy's hash, replicas left out), or why it has none (a customization's ReviseReplica failed). */
export function revisionOf(template: KubeObject, interpreter?: KindInterpreter): { revision: string; cleaned: KubeObject } | { error: string } {
  const cleaned = cleanTemplate(template);
  try {
    return { revision: templateRevision(cleaned, interpreter), cleaned };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/** Whether the binding is under a progressive rollout that has a state. */
export const rolloutActive = (b: ResourceBinding): boolean => b.spec.rollout !== undefined && b.status?.rollout !== undefined;

/**
 * cluster → the revision the rollout tells it to run, for the binding's clusters told another than
 * `current`. A cluster the state does not list yet (it joined since the leader last looked) runs
 * what the planner will tell it: the rollout's revision once that succeeded, else the stable one;
 * never a revision the rollout has not reached it with.
 */
export function heldRevisions(b: ResourceBinding, current: string): Map<string, string> {
  const out = new Map<string, string>();
  const state = rolloutActive(b) ? b.status?.rollout : undefined;
  if (state === undefined) return out;
  const told = new Map(state.clusters.map((c) => [c.name, c.revision]));
  const joined = state.phase === "Succeeded" ? state.revision : state.stableRevision;
  for (const t of b.spec.clusters) {
    const revision = told.get(t.name) ?? joined;
    if (revision !== current) out.set(t.name, revision);
  }
  return out;
}

/** What of a binding's status the Works follow: the revision each cluster is told (compared to skip other status writes). */
export function toldDigest(b: ResourceBinding): string {
  const state = rolloutActive(b) ? b.status?.rollout : undefined;
  if (state === undefined) return "";
  const joined = state.phase === "Succeeded" ? state.revision : state.stableRevision;
  return [joined, ...state.clusters.map((c) => `${c.name}=${c.revision}`)].join(",");
}
