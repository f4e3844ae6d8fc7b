// A rollout revision of a Secret template (issue 37, item 5). A ControllerRevision may be read by
// the built-in `view` role, which may not read Secrets, so a Secret's revision keeps its values
// where only a Secret's readers can read them: in a Secret of its own (type
// flotilla.dev/rollout-revision, the ControllerRevision's name and namespace, owned by the
// template) whose data is the template's data, key for key (so it is no larger than the template).
// The ControllerRevision keeps the template without its values (data, stringData, and the
// last-applied annotation that repeats them), and names its revision under VALUES_IN_SECRET
// instead of the usual annotation: a control plane of an earlier version, which would render
// the copy without values and so empty the members' Secrets, never files it as a revision. Pure.
import type { KubeObject } from "../../shared/api/types.ts";

/** The type of the Secret that holds a Secret template's revision. */
export const REVISION_SECRET_TYPE = "flotilla.dev/rollout-revision";
/** On a ControllerRevision without its template's values: the revision, whose values are in the Secret of the same name. */
export const VALUES_IN_SECRET = "flotilla.dev/revision-values-in-secret";
/** client-side `kubectl apply` repeats the whole object, values included, in this annotation. */
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

type SecretShape = KubeObject & { type?: string; data?: Record<string, string>; stringData?: Record<string, string> };

/** Whether a template's revision must keep its values out of its ControllerRevision: a core Secret's. */
export function holdsSecretValues(template: KubeObject): boolean {
  return template.apiVersion === "v1" && template.kind === "Secret";
}

/** The template without data, stringData and the last-applied annotation: what its ControllerRevision shows. */
export function withoutSecretValues(template: KubeObject): KubeObject {
  const { data: _data, stringData: _stringData, ...rest } = template as SecretShape;
  const annotations = template.metadata.annotations;
  if (annotations === undefined || !Object.hasOwn(annotations, LAST_APPLIED)) return rest;
  const { [LAST_APPLIED]: _lastApplied, ...kept } = annotations;
  return { ...rest, metadata: { ...template.metadata, annotations: kept } };
}

/**
 * The Secret that holds `template`'s values for the ControllerRevision whose metadata is `meta`
 * (name, namespace, labels, annotations, owner): its data, with any stringData in base64 over it
 * (as the apiserver would store them; a stored template has none).
 */
export function revisionSecret(meta: KubeObject["metadata"], template: KubeObject): KubeObject {
  const t = template as SecretShape;
  const fromStrings = Object.fromEntries(Object.entries(t.stringData ?? {}).map(([k, v]) => [k, Buffer.from(String(v)).toString("base64")]));
  return { apiVersion: "v1", kind: "Secret", metadata: { ...meta }, type: REVISION_SECRET_TYPE, data: { ...(t.data ?? {}), ...fromStrings } } as KubeObject;
}

/** The template again: the ControllerRevision's copy with the values its Secret holds; undefined when `secret` is not such a Secret. */
export function withSecretValues(shown: KubeObject, secret: KubeObject): KubeObject | undefined {
  const s = secret as SecretShape;
  if (s.type !== REVISION_SECRET_TYPE) return undefined;
  const data = s.data ?? {};
  return Object.keys(data).length === 0 ? { ...shown } : ({ ...shown, data: { ...data } } as KubeObject);
}
