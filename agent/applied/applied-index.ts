// Which Works' records name each member object (group, kind, namespace, name: a version is only how
// it was read): pure. The deletion judge asks whether another Work applied the same object too,
// once per object it deletes, so the answer must not cost a scan of every record.
import { apiGroup } from "../../shared/work-key.ts";
import type { AppliedRecord, AppliedResource } from "../judge/applied-record.ts";

function objectId(r: AppliedResource): string {
  return `${apiGroup(r.apiVersion)}|${r.kind}|${r.namespace ?? ""}|${r.name}`;
}

export class AppliedIndex {
  private readonly byObject = new Map<string, Set<string>>();

  /** A record as it is now; `before`: the record it replaces, if any. */
  put(record: AppliedRecord, before: AppliedRecord | undefined): void {
    if (before !== undefined) this.remove(before);
    for (const r of record.resources) {
      const id = objectId(r);
      let keys = this.byObject.get(id);
      if (keys === undefined) this.byObject.set(id, (keys = new Set()));
      keys.add(record.key);
    }
  }

  remove(record: AppliedRecord): void {
    for (const r of record.resources) {
      const id = objectId(r);
      const keys = this.byObject.get(id);
      keys?.delete(record.key);
      if (keys?.size === 0) this.byObject.delete(id);
    }
  }

  /** Another Work whose record names the same object, if any. */
  otherNaming(key: string, r: AppliedResource): string | undefined {
    for (const k of this.byObject.get(objectId(r)) ?? []) if (k !== key) return k;
    return undefined;
  }
}
