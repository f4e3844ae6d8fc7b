// The revision of Flotilla's CRDs (control-plane/crds/), so that a control plane never replaces a
// served CRD with an older one: during a rolling upgrade or after a rollback, an old replica's
// install would otherwise prune the fields the newer schema added from every stored object (DESIGN
// §11: no CRD downgrade). Every CRD file carries the annotation with this number; a change to the
// files must bump it (crd-revision.test.ts checks the files against CRD_FILES_SHA256).

/** The annotation each CRD carries. */
export const CRD_REVISION_ANNOTATION = "flotilla.dev/crd-revision";

/** The revision the files in control-plane/crds/ have. */
export const CRD_REVISION = 12;

/** SHA-256 over the CRD files (name, NUL, contents, NUL, in name order) at CRD_REVISION. */
export const CRD_FILES_SHA256 = "d07da1b74328cad96bfc39b586ad53eef54c0bdcdb396e130a90d511e63e2196";

/**
 * Whether to apply our CRD over the served one: not when the served one says a higher revision.
 * A served CRD without the annotation (from before revisions) or with a lower one is replaced;
 * one whose annotation is not a number is replaced too (it cannot be newer than a number says).
 */
export function crdInstallAction(served: { annotations?: Record<string, string> } | undefined, ours: number): "apply" | "keep-newer" {
  const value = served?.annotations?.[CRD_REVISION_ANNOTATION];
  const revision = value === undefined ? Number.NaN : Number(value);
  return Number.isInteger(revision) && revision > ours ? "keep-newer" : "apply";
}

/** Whether a set of CRDs is non-empty and every one of them carries this revision. */
export function crdsOfRevision(crds: readonly { metadata?: { annotations?: Record<string, string> } }[], revision: number): boolean {
  return crds.length > 0 && crds.every((c) => c.metadata?.annotations?.[CRD_REVISION_ANNOTATION] === String(revision));
}
