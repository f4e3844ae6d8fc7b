// A Work the hub removed: its recorded objects deleted (or, preserved, released) through the
// deleter, each on the judge's verdict, in the reverse of the apply order. What is kept or fails
// is reported and the removal tried again; only a full removal forgets the record and confirms.
import type { ReconcileResult } from "../../shared/controller.ts";
import type { WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { workKeyLabelValue } from "../../shared/work-key.ts";
import type { AppliedStore } from "../applied/applied-store.ts";
import type { MemberDeletion } from "../applied/member-deletion.ts";
import { inDeleteOrder } from "../apply/work-manifests.ts";

export interface RemovalAccess {
  applied: AppliedStore;
  deletion: MemberDeletion;
  publish: (status: WorkStatus) => void;
  /** How long before a Work whose removal kept a Namespace or CRD is tried again. */
  keptRecheckMs: number;
  /** Forgets the removed Work's state once its objects are gone (called before the confirmation is published). */
  forget: (key: string) => void;
}

export async function removeWork(s: RemovalAccess, key: string, preserve: boolean, reason: string): Promise<ReconcileResult> {
  const record = s.applied.get(key);
  const label = workKeyLabelValue(key);
  const { kept, failures } = await s.deletion.removeAll(key, inDeleteOrder(record?.resources ?? []), label, preserve, reason);
  if (failures.length > 0 || kept.length > 0) {
    // Not removed yet: the binding keeps waiting for it, and shows why (DESIGN §11: keep and report).
    const message = [...kept, ...failures].join("; ");
    s.publish({ workKey: key, observedHash: record?.hash ?? "", applied: false, available: false, reason: "DeletionFailed", message, manifests: [], deleted: false });
    if (failures.length > 0) throw new Error(`deleting work ${key}: ${failures.join("; ")}`);
    return { requeueAfterMs: s.keptRecheckMs };
  }
  s.applied.delete(key);
  s.forget(key);
  // The confirmation stays as the Work's status (tiny): it must survive until the stream has
  // room for it, and it is sent again after a reconnect.
  s.publish({ workKey: key, observedHash: "", applied: false, available: false, reason: "", message: "", manifests: [], deleted: true });
  return undefined;
}
