// Whether a removed Work's member objects stay (preserveResourcesOnDeletion): pure.
// The hub says `preserve` in its WorkDelete, from the binding it sees then. When the binding is
// already gone (released before the agent heard of the removal) the hub cannot say, so the agent
// also keeps the flag with its record of the Work (from each WorkUpsert) and preserves when either
// says so. Keeping is the protective side (DESIGN §11).

/**
 * Removals where the hub judged on a binding it saw, which asks to move the Work rather than end
 * it: preserveResourcesOnDeletion is about the template's deletion, and the hub's false stands.
 */
const JUDGED_ON_THE_BINDING: ReadonlySet<string> = new Set(["PlacementChanged", "ClusterUnjoined"]);

/**
 * said: the WorkDelete's preserve; reason: its reason; recorded: the flag the agent keeps with the
 * Work (its record, or the Work it holds).
 */
export function preserveOnRemoval(said: boolean, reason: string, recorded: boolean): boolean {
  if (said) return true;
  return recorded && !JUDGED_ON_THE_BINDING.has(reason);
}
