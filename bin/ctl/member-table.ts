// The members' answers to one `get`, merged into one table as `karmadactl get` shows them: the
// apiserver's own printing (a meta.k8s.io Table per member, server-side printing) with a CLUSTER
// column first, and NAMESPACE when every namespace is listed. Pure.

/** What a meta.k8s.io/v1 Table holds that the merge reads. */
export interface KubeTable {
  columnDefinitions?: { name: string; type?: string; priority?: number }[];
  rows?: { cells?: unknown[]; object?: { metadata?: { namespace?: string; name?: string } } }[];
}

/** One member's table. */
export interface ClusterTable {
  cluster: string;
  table: KubeTable;
}

/**
 * The headers and rows of the merged table: the columns of the first table that has any (a
 * member whose apiserver prints other columns gets its cells by column name), those of priority
 * above 0 only when `wide` (kubectl's -o wide); rows cluster by cluster, each in its apiserver's order.
 */
export function mergeTables(parts: readonly ClusterTable[], opts: { wide: boolean; namespaceColumn: boolean }): { headers: string[]; rows: string[][] } {
  const defs = parts.find((p) => (p.table.columnDefinitions ?? []).length > 0)?.table.columnDefinitions ?? [];
  const shown = defs.filter((d) => opts.wide || (d.priority ?? 0) === 0).map((d) => d.name);
  const headers = ["cluster", ...(opts.namespaceColumn ? ["namespace"] : []), ...shown];
  const rows: string[][] = [];
  for (const { cluster, table } of parts) {
    const index = shown.map((name) => (table.columnDefinitions ?? []).findIndex((d) => d.name === name));
    for (const row of table.rows ?? []) {
      const cells = index.map((i) => (i < 0 ? "" : cellText(row.cells?.[i])));
      rows.push([cluster, ...(opts.namespaceColumn ? [row.object?.metadata?.namespace ?? ""] : []), ...cells]);
    }
  }
  return { headers, rows };
}

/** A cell as kubectl prints it: strings as they are, numbers and booleans as text, nothing for null. */
export function cellText(cell: unknown): string {
  if (cell === null || cell === undefined) return "";
  if (typeof cell === "string") return cell;
  if (typeof cell === "number" || typeof cell === "boolean") return String(cell);
  return JSON.stringify(cell);
}

/** What kubectl says of an empty answer: in which namespace nothing was found. */
export function noneFound(namespace: string | undefined): string {
  return namespace === undefined ? "No resources found" : `No resources found in ${namespace} namespace.`;
}

/** The objects of every member as one `kind: List`, each marked with its cluster (annotation flotilla.dev/cluster) and without managedFields, for -o json|yaml. */
export function mergeObjects(parts: readonly { cluster: string; objects: readonly Record<string, unknown>[] }[]): Record<string, unknown> {
  const items = parts.flatMap(({ cluster, objects }) =>
    objects.map((o) => {
      // Without managedFields, as kubectl prints objects (--show-managed-fields=false).
      const { managedFields: _, ...metadata } = (o.metadata ?? {}) as { annotations?: Record<string, string>; managedFields?: unknown };
      return { ...o, metadata: { ...metadata, annotations: { ...metadata.annotations, [CLUSTER_ANNOTATION]: cluster } } };
    }),
  );
  return { apiVersion: "v1", kind: "List", items };
}

/** A list's items as whole objects: the apiserver leaves apiVersion and kind to the list (PodList → Pod). */
export function listItems(list: { apiVersion?: string; kind?: string; items?: Record<string, unknown>[] }): Record<string, unknown>[] {
  const kind = (list.kind ?? "").replace(/List$/, "");
  return (list.items ?? []).map((i) => ({ apiVersion: list.apiVersion, kind, ...i }));
}

/** The annotation -o json|yaml adds to each object to say which member it came from. */
export const CLUSTER_ANNOTATION = "flotilla.dev/cluster";
