// Objects in the member that carry a Work's label but that no applied record names (DESIGN §11):
// left by an agent that crashed between an apply and its record before records were written
// first. Pure. The agent adopts them into the record of the Work their annotation names; the hub
// then decides, from the user's intent, whether that Work is wanted (it keeps them) or not (the
// agent deletes them with the hub's reason). Nothing is deleted on the agent's own judgement.
// An object is adopted only when it is the very object its key names (group, kind, namespace and
// name; labels alone can be copied with the object, as `kubectl get -o yaml | sed | apply` or a
// restore under another namespace do), and the record keeps every other field it had.
import { foreign } from "./owner.ts";
import { type KubeObject, LABELS } from "../../shared/api/types.ts";
import { apiGroup, parseWorkKey, type WorkRef, workKeyLabelValue, WORK_KEY_ANNOTATION } from "../../shared/work-key.ts";
import type { AppliedRecord, AppliedResource } from "./applied-record.ts";
import { sameObject } from "./deletion-judge.ts";

/** The records to write so that every labelled object is named by its Work's record. */
export function adoptOrphans(records: ReadonlyMap<string, AppliedRecord>, labelled: readonly KubeObject[], owner?: string): AppliedRecord[] {
  const adopted = new Map<string, AppliedRecord>();
  for (const o of labelled) {
    const key = o.metadata.annotations?.[WORK_KEY_ANNOTATION];
    // Only an object whose label and annotation agree is a Work's; anything else is left alone.
    if (key === undefined || o.metadata.labels?.[LABELS.work] !== workKeyLabelValue(key) || o.metadata.labels?.[LABELS.managed] === "false") continue;
    // Another fleet's or another cluster's agent's object is never adopted.
    if (foreign(o, owner)) continue;
    // A copy under another name, namespace or kind carries the same label and annotation: not the Work's.
    if (!namedByKey(o, key)) continue;
    const record = adopted.get(key) ?? records.get(key);
    // Its uid: the object found is the one the Work applied before the crash, and only it may go.
    const resource: AppliedResource = { apiVersion: o.apiVersion, kind: o.kind, ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}), name: o.metadata.name ?? "", ...(o.metadata.uid !== undefined ? { uid: o.metadata.uid } : {}) };
    // Recorded at any version of its group (a CRD served at several is listed at each): already the Work's.
    if (record?.resources.some((r) => sameObject(r, resource))) continue;
    // The hash stays what the record said ("" when there was none): the hub sends the Work again.
    adopted.set(key, { ...record, key, hash: record?.hash ?? "", resources: [...(record?.resources ?? []), resource] });
  }
  return [...adopted.values()].sort((a, b) => (a.key < b.key ? -1 : 1));
}

/**
 * Whether the object is the one a Work key names: the same group (any version: a CRD served at
 * several versions lists its objects at one of them), kind, namespace and name. A key that does
 * not parse names nothing.
 */
export function namedByKey(o: KubeObject, key: string): boolean {
  let ref: WorkRef;
  try {
    ref = parseWorkKey(key);
  } catch {
    return false;
  }
  return apiGroup(o.apiVersion) === apiGroup(ref.apiVersion) && o.kind === ref.kind && (o.metadata.namespace ?? "") === (ref.namespace ?? "") && o.metadata.name === ref.name;
}

