// Whether to install our copy of an MCS CRD over the one a member serves (issue 40): never
// downgrade. Several tools install multicluster.x-k8s.io in the same clusters (Karmada's charts,
// Submariner, Cilium, the mcs-api controllers), and an older schema over a newer one prunes the
// newer fields from every stored object. Upstream labels its CRDs with the mcs-api release and a
// schema revision that restarts at 0 with each release, so the release is compared first and the
// revision only within one release (Cilium's installer compares the revision alone, which takes a
// newer release's revision 0 for older: not copied). Pure: shared/mcs-crd-install.ts does the I/O.

/** The mcs-api release a CRD's schema is (a semver, "v0.5.2"). */
export const MCS_RELEASE_LABEL = "multicluster.x-k8s.io/release-version";
/** The schema's revision within its release (an integer, from "0"). */
export const MCS_REVISION_LABEL = "multicluster.x-k8s.io/crd-schema-revision";

/** What this decision reads of a CRD, served or ours. */
export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  [field: string]: unknown;
}
export interface Crd {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; labels?: Record<string, string>; [field: string]: unknown };
  spec: { versions: CrdVersion[]; [field: string]: unknown };
  status?: { storedVersions?: string[] };
}

export type McsCrdAction = "create" | "upgrade" | "keep";

export interface McsCrdDecision {
  action: McsCrdAction;
  /** Why, for the log and the caller's report. */
  reason: string;
  /** For create and upgrade: what to apply (ours, plus any version only the served CRD has). */
  apply?: Crd;
  /** Kept because the served CRD is (or may be) newer than ours: worth a warning. */
  newer?: boolean;
}

/** A release label's version, or undefined when it is not one. */
export function parseRelease(value: string): { core: [number, number, number]; pre: string[] } | undefined {
  const m = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(value);
  if (m === null) return undefined;
  return { core: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] === undefined ? [] : m[4].split(".") };
}

/** Semver order of two release labels (negative: a is older); undefined when either is not a version. */
export function compareReleases(a: string, b: string): number | undefined {
  const x = parseRelease(a);
  const y = parseRelease(b);
  if (x === undefined || y === undefined) return undefined;
  for (let i = 0; i < 3; i++) if (x.core[i] !== y.core[i]) return (x.core[i] as number) - (y.core[i] as number);
  // A pre-release comes before its release; identifiers compare numerically when both are numbers.
  if (x.pre.length === 0 || y.pre.length === 0) return y.pre.length - x.pre.length;
  for (let i = 0; i < Math.min(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i] as string;
    const q = y.pre[i] as string;
    if (p === q) continue;
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn) return Number(p) - Number(q);
    if (pn !== qn) return pn ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return x.pre.length - y.pre.length;
}

/** A revision label's number: -1 when absent (older than any), undefined when not a number. */
function revisionOf(labels: Record<string, string> | undefined): number | undefined {
  const value = labels?.[MCS_REVISION_LABEL];
  if (value === undefined) return -1;
  return /^(0|[1-9]\d*)$/.test(value) ? Number(value) : undefined;
}

/**
 * create when nothing is served; upgrade when the served CRD has no release label, an older
 * release, or the same release at a lower revision; keep otherwise (the same one, or a newer one:
 * the reason says which). A CRD of ours without a release label (ClusterProperty: about-api labels
 * none) is only ever created: there is nothing to compare a served one with.
 */
export function decideMcsCrd(served: Crd | undefined, ours: Crd): McsCrdDecision {
  const name = ours.metadata.name ?? "";
  if (served === undefined) return { action: "create", reason: `${name} is not served`, apply: ours };
  const ourRelease = ours.metadata.labels?.[MCS_RELEASE_LABEL];
  const theirRelease = served.metadata.labels?.[MCS_RELEASE_LABEL];
  if (ourRelease === undefined) return { action: "keep", reason: `${name} is served already and carries no release to compare with ours: it stays as it is` };
  const ourRevision = revisionOf(ours.metadata.labels) ?? 0;
  const ourText = `release ${ourRelease} revision ${ourRevision}`;
  let why: string;
  if (theirRelease === undefined) why = `the served ${name} has no ${MCS_RELEASE_LABEL} label (an older installer's): upgrading to ${ourText}`;
  else {
    const order = compareReleases(theirRelease, ourRelease);
    if (order === undefined) return { action: "keep", reason: `the served ${name} says release ${JSON.stringify(theirRelease)}, not a version: it might be newer, so it stays`, newer: true };
    if (order > 0) return { action: "keep", reason: `a newer ${name} is served (release ${theirRelease}, ours ${ourRelease}): it stays`, newer: true };
    if (order < 0) why = `the served ${name} is release ${theirRelease}, older than ours: upgrading to ${ourText}`;
    else {
      const theirRevision = revisionOf(served.metadata.labels);
      if (theirRevision === undefined) return { action: "keep", reason: `the served ${name} says revision ${JSON.stringify(served.metadata.labels?.[MCS_REVISION_LABEL])}, not a number: it might be newer, so it stays`, newer: true };
      if (theirRevision > ourRevision) return { action: "keep", reason: `a newer ${name} is served (release ${theirRelease} revision ${theirRevision}, ours revision ${ourRevision}): it stays`, newer: true };
      if (theirRevision === ourRevision) return { action: "keep", reason: `${name} is served at ${ourText}, ours` };
      why = `the served ${name} is release ${theirRelease} at revision ${theirRevision < 0 ? "(none)" : theirRevision}: upgrading to revision ${ourRevision}`;
    }
  }
  return withServedVersions(served, ours, why);
}

/**
 * The apiserver refuses a CRD whose versions drop one its storedVersions lists (objects may still
 * be stored in it), and users may read a version ours lacks: such a version stays, served and not
 * stored, with the served CRD's schema for it.
 */
function withServedVersions(served: Crd, ours: Crd, why: string): McsCrdDecision {
  const name = ours.metadata.name ?? "";
  const ourNames = new Set(ours.spec.versions.map((v) => v.name));
  const kept = served.spec.versions.filter((v) => !ourNames.has(v.name)).map((v) => ({ ...v, served: true, storage: false }));
  const keptNames = new Set(kept.map((v) => v.name));
  const lost = (served.status?.storedVersions ?? []).filter((v) => !ourNames.has(v) && !keptNames.has(v));
  if (lost.length > 0) return { action: "keep", reason: `the served ${name} has objects stored as ${lost.join(", ")}, a version neither it nor ours defines: it stays` };
  if (kept.length === 0) return { action: "upgrade", reason: why, apply: ours };
  const apply: Crd = { ...ours, spec: { ...ours.spec, versions: [...ours.spec.versions, ...kept] } };
  return { action: "upgrade", reason: `${why}, still serving ${kept.map((v) => v.name).join(", ")} as the served CRD does`, apply };
}
