// Taking over a live fleet from Karmada or KubeFed without restarting it (issues 26 and 39):
// `flotillactl migrate karmada` and `migrate kubefed` mark each template they write with
// `flotilla.dev/adopt: karmada` or `kubefed`, and the agent then adopts the member object that
// system applied (it carries that system's managed label) even under conflictResolution Abort.
// Only the marked templates' objects, only that system's, and never an object another Flotilla
// Work or fleet holds. Pure.
import { type KubeObject, LABELS } from "../../shared/api/types.ts";
import { KARMADA_MANAGED_LABEL, KUBEFED_MANAGED_LABEL } from "../judge/owner.ts";

/** On a template (and so on every manifest rendered from it): adopt the member's object the named system made. */
export const ADOPT_ANNOTATION = "flotilla.dev/adopt";
export const ADOPT_KARMADA = "karmada";
export const ADOPT_KUBEFED = "kubefed";

/** The managed label of each system a template may ask to adopt from. */
const MANAGED_LABELS: Readonly<Record<string, string>> = { [ADOPT_KARMADA]: KARMADA_MANAGED_LABEL, [ADOPT_KUBEFED]: KUBEFED_MANAGED_LABEL };

/** Whether the agent may take over `live`, an object it did not create, for `manifest`. */
export function adoptsFromPrevious(manifest: KubeObject, live: KubeObject): boolean {
  const from = manifest.metadata.annotations?.[ADOPT_ANNOTATION];
  const label = from === undefined ? undefined : MANAGED_LABELS[from];
  const labels = live.metadata.labels ?? {};
  return label !== undefined && labels[label] === "true" && labels[LABELS.work] === undefined;
}
