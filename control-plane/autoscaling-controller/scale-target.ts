// Writes a template's replicas (I/O), for the FederatedHPA and CronFederatedHPA controllers: its
// scale subresource, else spec.replicas for a kind without one that keeps its replicas there.
import type { KubeObject } from "../../shared/api/types.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import type { WorkRef } from "../../shared/work-key.ts";
import type { TemplateInformers } from "../detector/template-informers.ts";

export const AUTOSCALER_FIELD_MANAGER = "flotilla-federated-hpa";

export async function scaleTemplate(rest: KubeRest, templates: TemplateInformers, template: KubeObject | undefined, ref: WorkRef, replicas: number): Promise<void> {
  const resource = templates.resource(ref);
  if (resource === undefined || template === undefined) throw new Error(`${ref.kind} ${ref.namespace ?? ""}/${ref.name} is not a template Flotilla watches`);
  const path = objectPath(resource, ref.namespace, ref.name);
  try {
    await rest.mergePatch(`${path}/scale`, { spec: { replicas } }, AUTOSCALER_FIELD_MANAGER);
  } catch (err) {
    if (!isKubeStatus(err, 404) || typeof (template.spec as { replicas?: unknown } | undefined)?.replicas !== "number") throw err;
    await rest.mergePatch(path, { spec: { replicas } }, AUTOSCALER_FIELD_MANAGER);
  }
}
