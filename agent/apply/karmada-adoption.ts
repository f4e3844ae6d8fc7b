// Taking over a live fleet from Karmada without restarting it (issue 26): `flotillactl migrate
// karmada` marks each template it copies with `flotilla.dev/adopt: karmada`, and the agent then
// adopts a member object that Karmada's agent applied (it carries Karmada's managed label) even
// under conflictResolution Abort. Only the marked templates' objects, only Karmada's, and never an
// object another Flotilla Work or fleet holds. Pure.
import { type KubeObject, LABELS } from "../../shared/api/types.ts";

/** On a template (and so on every manifest rendered from it): adopt the member's object Karmada made. */
export const ADOPT_ANNOTATION = "flotilla.dev/adopt";
export const ADOPT_KARMADA = "karmada";
/** Karmada's label on every object its agent applies in a member (pkg/util: ManagedByKarmadaLabel). */
export const KARMADA_MANAGED_LABEL = "karmada.io/managed";

/** Whether the agent may take over `live`, an object it did not create, for `manifest`. */
export function adoptsFromKarmada(manifest: KubeObject, live: KubeObject): boolean {
  const labels = live.metadata.labels ?? {};
  return manifest.metadata.annotations?.[ADOPT_ANNOTATION] === ADOPT_KARMADA && labels[KARMADA_MANAGED_LABEL] === "true" && labels[LABELS.work] === undefined;
}
