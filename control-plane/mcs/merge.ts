// One namespace/name's exports, from every cluster that exports it, merged into the import every
// member gets (KEP-1645 "Constraints and Conflict Resolution", pure). Precedence goes by the
// ServiceExport's creationTimestamp, oldest first; timestamps have 1 s granularity, so a tie goes
// to the cluster name. Where values cannot be merged the oldest export's win, and every export
// (the oldest included) gets Conflict=True with the reasons comma-joined, as the KEP asks.
import type { McsCondition, MemberServiceExportSpec, ServicePort } from "../../shared/api/mcs.ts";
import { canonicalJson } from "../../shared/content-hash.ts";
import { mergePorts, portId } from "./ports.ts";

/** The Conflict condition's reasons (the KEP's, v1beta1/serviceexport.go), in the order they are joined. */
export type ConflictReason =
  | "PortConflict"
  | "TypeConflict"
  | "SessionAffinityConflict"
  | "SessionAffinityConfigConflict"
  | "LabelsConflict"
  | "AnnotationsConflict"
  | "InternalTrafficPolicyConflict"
  | "TrafficDistributionConflict"
  | "IPFamilyConflict";

/** One field the exports disagree on: the clusters whose export differs from the oldest's, and the sentence for the condition. */
export interface MergeConflict {
  reason: ConflictReason;
  /** The clusters whose export differs from the oldest, sorted. */
  disagreeing: string[];
  message: string;
}

export interface MergeOptions {
  /** The clusterset's name (ClusterProperty `clusterset.k8s.io`), named in the Ready condition's message. */
  clusterset?: string;
}

/** The import of one namespace/name, merged from its exports: the oldest export's type, affinity and traffic policies. */
export interface MergedImport extends Pick<MemberServiceExportSpec, "namespace" | "name" | "type" | "sessionAffinity" | "sessionAffinityConfig" | "internalTrafficPolicy" | "trafficDistribution"> {
  /** The union of the exports' ports, the oldest's first; protocol always set (default TCP). */
  ports: ServicePort[];
  /** The oldest export's exportedLabels and exportedAnnotations, whole (never a union). */
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** The exports, one per cluster, oldest first: their endpoints all go into the import. */
  exports: MemberServiceExportSpec[];
  /** The exporting clusters, sorted by name. */
  clusters: string[];
  conflicts: MergeConflict[];
  /** cluster → its export's Ready and Conflict conditions (the same on every export). */
  exportConditions: ReadonlyMap<string, McsCondition[]>;
}

/** Oldest first; a tie (1 s granularity) goes to the cluster name, then the export's uid. */
export function byPrecedence(a: MemberServiceExportSpec, b: MemberServiceExportSpec): number {
  const ta = timeOf(a.exportCreationTimestamp);
  const tb = timeOf(b.exportCreationTimestamp);
  if (ta !== tb) return ta < tb ? -1 : 1;
  return compare(a.cluster, b.cluster) || compare(a.exportUid, b.exportUid);
}

/**
 * The import merged from one namespace/name's exports (any order), or undefined when there is no
 * export. A cluster listed twice counts once, by its oldest export.
 */
export function mergeExports(exports: readonly MemberServiceExportSpec[], opts: MergeOptions = {}): MergedImport | undefined {
  const ordered = oneEach([...exports].sort(byPrecedence));
  const oldest = ordered[0];
  if (oldest === undefined) return undefined;
  const ports = mergePorts(ordered.map((e) => e.ports));
  const conflicts = findConflicts(ordered);
  const exportConditions = new Map<string, McsCondition[]>();
  const conditions = [readyCondition(opts), conflictCondition(conflicts)];
  for (const e of ordered) exportConditions.set(e.cluster, conditions);
  return {
    namespace: oldest.namespace,
    name: oldest.name,
    type: oldest.type,
    ports,
    ...defined({
      sessionAffinity: oldest.sessionAffinity,
      sessionAffinityConfig: oldest.sessionAffinityConfig,
      internalTrafficPolicy: oldest.internalTrafficPolicy,
      trafficDistribution: oldest.trafficDistribution,
    }),
    labels: { ...(oldest.exportedLabels ?? {}) },
    annotations: { ...(oldest.exportedAnnotations ?? {}) },
    exports: ordered,
    clusters: ordered.map((e) => e.cluster).sort(compare),
    conflicts,
    exportConditions,
  };
}

/** One field the oldest export decides: how to read it off an export for comparison, and how to name it in a message. */
interface Field {
  reason: ConflictReason;
  /** The value compared (canonical, defaults filled in so an unset field equals its default). */
  value: (e: MemberServiceExportSpec) => string;
  /** The sentence, up to its count: `Conflicting type. Using "ClusterSetIP" from oldest service export in "cluster-1".` */
  using: (oldest: MemberServiceExportSpec, where: string) => string;
}

const json = (v: unknown) => canonicalJson(v ?? null);
const quoted = (v: string | undefined) => (v === undefined ? "none" : JSON.stringify(v));

const FIELDS: Field[] = [
  {
    reason: "PortConflict",
    value: (e) => json(e.ports.map(portId).sort()),
    using: (_, where) => `Conflicting ports. Using the union of the exports' ports, those of the ${where} where they clash.`,
  },
  { reason: "TypeConflict", value: (e) => e.type, using: (o, where) => `Conflicting type. Using ${quoted(o.type)} from ${where}.` },
  {
    reason: "SessionAffinityConflict",
    value: (e) => e.sessionAffinity ?? "None",
    using: (o, where) => `Conflicting session affinity. Using ${quoted(o.sessionAffinity ?? "None")} from ${where}.`,
  },
  {
    reason: "SessionAffinityConfigConflict",
    value: (e) => json(e.sessionAffinityConfig),
    using: (o, where) => `Conflicting session affinity config. Using ${o.sessionAffinityConfig === undefined ? "none" : canonicalJson(o.sessionAffinityConfig)} from ${where}.`,
  },
  { reason: "LabelsConflict", value: (e) => json(e.exportedLabels ?? {}), using: (_, where) => `Conflicting exported labels. Using those of the ${where}.` },
  { reason: "AnnotationsConflict", value: (e) => json(e.exportedAnnotations ?? {}), using: (_, where) => `Conflicting exported annotations. Using those of the ${where}.` },
  {
    reason: "InternalTrafficPolicyConflict",
    value: (e) => e.internalTrafficPolicy ?? "Cluster",
    using: (o, where) => `Conflicting internal traffic policy. Using ${quoted(o.internalTrafficPolicy ?? "Cluster")} from ${where}.`,
  },
  {
    reason: "TrafficDistributionConflict",
    value: (e) => e.trafficDistribution ?? "",
    using: (o, where) => `Conflicting traffic distribution. Using ${quoted(o.trafficDistribution)} from ${where}.`,
  },
];

/** What the exports disagree on, in the reasons' order; the oldest export is the reference for each field. */
function findConflicts(ordered: readonly MemberServiceExportSpec[]): MergeConflict[] {
  const oldest = ordered[0] as MemberServiceExportSpec;
  const total = ordered.length;
  const where = `oldest service export in ${JSON.stringify(oldest.cluster)}`;
  const sentence = (head: string, disagreeing: string[]) => `${head} ${disagreeing.length}/${total} clusters disagree.`;
  const conflicts: MergeConflict[] = [];
  for (const f of FIELDS) {
    const want = f.value(oldest);
    const disagreeing = ordered.filter((e) => f.value(e) !== want).map((e) => e.cluster).sort(compare);
    if (disagreeing.length > 0) conflicts.push({ reason: f.reason, disagreeing, message: sentence(f.using(oldest, where), disagreeing) });
  }
  // IP families: a conflict only where an export shares no family with the oldest (its backends
  // could not be reached over the import's family). An export or an oldest that reports none is
  // not judged; a single-stack export under a dual-stack oldest is no conflict (one family works).
  const families = new Set(oldest.ipFamilies ?? []);
  if (families.size > 0) {
    const disjoint = ordered.filter((e) => (e.ipFamilies ?? []).length > 0 && !(e.ipFamilies ?? []).some((f) => families.has(f)));
    const disagreeing = disjoint.map((e) => e.cluster).sort(compare);
    if (disagreeing.length > 0) {
      const head = `Conflicting IP families. Using ${JSON.stringify([...families].join(","))} from ${where}.`;
      conflicts.push({ reason: "IPFamilyConflict", disagreeing, message: sentence(head, disagreeing) });
    }
  }
  return conflicts;
}

function readyCondition(opts: MergeOptions): McsCondition {
  const where = opts.clusterset === undefined ? "the clusterset" : `the clusterset ${JSON.stringify(opts.clusterset)}`;
  return { type: "Ready", status: "True", reason: "Ready", message: `The service is imported in ${where}.` };
}

function conflictCondition(conflicts: readonly MergeConflict[]): McsCondition {
  if (conflicts.length === 0) return { type: "Conflict", status: "False", reason: "NoConflicts", message: "Every export of the service agrees." };
  return { type: "Conflict", status: "True", reason: conflicts.map((c) => c.reason).join(","), message: conflicts.map((c) => c.message).join(" ") };
}

/** The first export of each cluster (the list is in precedence order). */
function oneEach(ordered: MemberServiceExportSpec[]): MemberServiceExportSpec[] {
  const seen = new Set<string>();
  return ordered.filter((e) => {
    if (seen.has(e.cluster)) return false;
    seen.add(e.cluster);
    return true;
  });
}

/** Milliseconds since the epoch; an unreadable timestamp sorts last (it can never win over a readable one). */
function timeOf(timestamp: string): number {
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? Number.POSITIVE_INFINITY : t;
}

/** Code-unit order (never the locale's): every replica sorts the same. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The members of an object whose value is set. */
export function defined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
