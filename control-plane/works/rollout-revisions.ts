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

/** cluster → the revision the rollout tells it to run, for the clusters told another than `current`. */
export function heldRevisions(b: ResourceBinding, current: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!rolloutActive(b)) return out;
  for (const c of b.status?.rollout?.clusters ?? []) if (c.revision !== current) out.set(c.name, c.revision);
  return out;
}

/** What of a binding's status the Works follow: the revision each cluster is told (compared to skip other status writes). */
export function toldDigest(b: ResourceBinding): string {
  if (!rolloutActive(b)) return "";
  return (b.status?.rollout?.clusters ?? []).map((c) => `${c.name}=${c.revision}`).join(",");
}
