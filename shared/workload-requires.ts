// What a workload refers to, as its binding says it (LABELS.requires), while its dependencies are
// followed (under propagateDeps, and after it while it still refers to them): written by
// the binding controller, read by the hub's deletion judge (control-plane/hub/deletion-intent.ts),
// which runs on every replica and knows no interpreter. Pure.
import { LABELS, type ResourceBinding } from "./api/types.ts";

/** At most this many keys are written (a selector can name many objects); the rest are guarded by the dependency's requiredBy only. */
export const MAX_REQUIRES = 200;

/** The annotation's value for these template keys (sorted, comma-separated), or undefined for none. */
export function requiresAnnotation(keys: readonly string[]): string | undefined {
  const sorted = [...new Set(keys)].sort().slice(0, MAX_REQUIRES);
  return sorted.length === 0 ? undefined : sorted.join(",");
}

/** The template keys a binding says its workload refers to (rewritten with the binding: never stale for long). */
export function requiresOf(b: ResourceBinding): string[] {
  return (b.metadata.annotations?.[LABELS.requires] ?? "").split(",").filter((k) => k !== "");
}
