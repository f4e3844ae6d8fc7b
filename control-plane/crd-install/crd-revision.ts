// The revision of Flotilla's CRDs (control-plane/crds/), so that a control plane never replaces a
// served CRD with an older one: during a rolling upgrade or after a rollback, an old replica's
// install would otherwise prune the fields the newer schema added from every stored object (DESIGN
// §11: no CRD downgrade). Every CRD file carries the annotation with this number; a change to the
// files must bump it (crd-revision.test.ts checks the files against CRD_FILES_SHA256).

/** The annotation each CRD carries. */
export const CRD_REVISION_ANNOTATION = "flotilla.dev/crd-revision";

/** The revision the files in control-plane/crds/ have. */
export const CRD_REVISION = 14;

/** SHA-256 over the CRD files (name, NUL, contents, NUL, in name order) at CRD_REVISION. */
export const CRD_FILES_SHA256 = "7db548d0f4d85be2f2f3c004a8777381c4e79a738c991b960479ec6c0f08e2e3";

/** The API groups that are Flotilla's own; a CRD of any other group is an API other projects install too. */
export const OWN_GROUPS: readonly string[] = ["flotilla.dev", "multiclusterdns.flotilla.dev"];

/**
 * Whether to apply our CRD over the served one: not when the served one says a higher revision.
 * A served CRD without the annotation (from before revisions) or with a lower one is replaced;
 * one whose annotation is not a number is replaced too (it cannot be newer than a number says).
 * A shared API's CRD (`shared`: a group not in OWN_GROUPS, such as SIG Multicluster's
 * ClusterProfile) served without the annotation was installed by someone else (another cluster
 * manager, the user from upstream's release): it is theirs, of a schema we cannot compare with
 * ours, and stays as it is (keep-theirs).
 */
export function crdInstallAction(served: { annotations?: Record<string, string> } | undefined, ours: number, opts: { shared?: boolean } = {}): "apply" | "keep-newer" | "keep-theirs" {
  const value = served?.annotations?.[CRD_REVISION_ANNOTATION];
  if (served !== undefined && value === undefined && opts.shared === true) return "keep-theirs";
  const revision = value === undefined ? Number.NaN : Number(value);
  return Number.isInteger(revision) && revision > ours ? "keep-newer" : "apply";
}

/** Whether a set of CRDs is non-empty and every one of them carries this revision. */
export function crdsOfRevision(crds: readonly { metadata?: { annotations?: Record<string, string> } }[], revision: number): boolean {
  return crds.length > 0 && crds.every((c) => c.metadata?.annotations?.[CRD_REVISION_ANNOTATION] === String(revision));
}
