// How `flotillactl migrate karmada` prints its plan and what it wrote. Pure.
import type { KubeObject } from "../../shared/api/types.ts";
import { structured, table } from "./format.ts";
import type { MigrationItem } from "./migrate-convert.ts";

/** What the migration does (or did) with one object. */
export type MigrationAction = "create" | "update" | "skip" | "created" | "updated" | "failed";

export interface PlannedItem extends MigrationItem {
  action: MigrationAction;
}

function where(i: PlannedItem): { kind: string; namespace: string; name: string } {
  const o: KubeObject["metadata"] | MigrationItem["source"] = i.object?.metadata ?? i.source;
  return { kind: i.object?.kind ?? i.source.kind, namespace: o.namespace ?? "", name: o.name ?? "" };
}

/** The table: one row per object, its problems joined; objects with nothing to write show `skip`. */
export function migrationTable(items: readonly PlannedItem[]): string {
  return table(
    ["kind", "namespace", "name", "action", "problems"],
    items.map((i) => {
      const w = where(i);
      return [w.kind, w.namespace || "-", w.name, i.action, i.problems.length === 0 ? "-" : i.problems.join("; ")];
    }),
  );
}

/** -o json|yaml: every item with its source, action, problems and the object it writes. */
export function migrationStructured(items: readonly PlannedItem[], applied: boolean, format: "json" | "yaml"): string {
  return structured({ applied, items: items.map((i) => ({ source: i.source, action: i.action, problems: i.problems, ...(i.object === undefined ? {} : { object: i.object }) })) }, format);
}

/** The closing line (stderr): counts, and for a plan that nothing was written. */
export function migrationSummary(items: readonly PlannedItem[], applied: boolean): string {
  const count = (a: MigrationAction) => items.filter((i) => i.action === a).length;
  const problems = items.reduce((n, i) => n + i.problems.length, 0);
  const troubled = items.filter((i) => i.problems.length > 0).length;
  const tail = `${problems} problem${problems === 1 ? "" : "s"} on ${troubled} object${troubled === 1 ? "" : "s"}`;
  return applied
    ? `# ${count("created")} created, ${count("updated")} updated, ${count("failed")} failed, ${count("skip")} skipped; ${tail}; nothing was deleted`
    : `# plan: ${count("create")} to create, ${count("update")} to update, ${count("skip")} skipped; ${tail}; nothing was written (pass --apply)`;
}
