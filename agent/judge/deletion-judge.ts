// The agent's last word on deleting one member object for a Work the hub removed, or a manifest a
// Work's new version dropped (DESIGN §11): pure. The hub has already judged the user's intent
// (control-plane/hub/deletion-intent.ts); this judges identity and containment on what the member
// holds now:
// - identity: only the object this Work applied goes. It must carry this Work's label (not
//   flotilla.dev/managed=false), no other fleet's or cluster's owner, and, when the record kept
//   the uid the apply returned, that very uid: an object of the same name made since (by a user, a
//   restore, another tool), labels and all, is not the one applied;
// - sharing: an object another Work of this agent also applied (two Works for one member object:
//   a policy's selector moved to another version of a CRD) stays, for that Work;
// - containment: a Namespace or CRD goes only when nothing inside it is wanted by anyone else
//   (unmanaged-contents.ts). Inside it, only objects this Work's record names (by group, kind,
//   namespace and name, and uid where recorded) count as the Work's own: a copy a user made with
//   the Work's labels under another name is held like any object Flotilla does not manage.
// Anything it cannot prove is kept: the caller logs it, and reports what holds a Namespace or CRD;
// an object kept as "replaced" is also released (Flotilla's label taken off), so that no later
// orphan scan takes it for the Work's again.
import { type KubeObject, LABELS } from "../../shared/api/types.ts";
import { apiGroup } from "../../shared/work-key.ts";
import type { AppliedResource } from "./applied-record.ts";
import { foreign } from "./owner.ts";
import { cascades, heldContents, holdsAny, keptMessage } from "./unmanaged-contents.ts";

export type MemberVerdict =
  | { delete: true; uid: string | undefined }
  /** absent: nothing to delete; notOurs: no longer this Work's; replaced: not the object applied; shared: another Work applied it too; holds: a Namespace or CRD others still need. */
  | { delete: false; keep: "absent" | "notOurs" | "replaced" | "shared" | "holds"; message: string };

export interface MemberFacts {
  /** The object the record names, as the member holds it now (undefined: gone). */
  live: KubeObject | undefined;
  /** The record's entry for it. */
  recorded: AppliedResource;
  /** This Work's label value. */
  label: string;
  /** This agent's owner value (agent/judge/owner.ts). */
  owner?: string;
  /** For a Namespace or CRD: what it holds (every object in the namespace, every custom resource of the CRD). */
  contents?: readonly KubeObject[];
  /** Every object this Work's record names: what inside a Namespace or CRD counts as the Work's own. */
  record: readonly AppliedResource[];
  /** Another Work of this agent whose record names the same object (group, kind, namespace, name), if any. */
  sharedWith?: string;
}

/** Whether a live member object carries this Work's label and no other owner. */
export function isOurs(live: KubeObject | undefined, label: string, owner?: string): live is KubeObject {
  return live !== undefined && live.metadata.labels?.[LABELS.work] === label && live.metadata.labels?.[LABELS.managed] !== "false" && !foreign(live, owner);
}

/**
 * The record entry naming this object (group, kind, namespace and name: a version is only how it
 * was read). An entry without a namespace names a namespaced object in "default", where the agent
 * applied a manifest that gave none.
 */
export function recordedEntry(record: readonly AppliedResource[], o: KubeObject): AppliedResource | undefined {
  const group = apiGroup(o.apiVersion);
  const namespace = o.metadata.namespace ?? "";
  return record.find((r) => apiGroup(r.apiVersion) === group && r.kind === o.kind && r.name === o.metadata.name && (r.namespace ?? (namespace === "default" ? "default" : "")) === namespace);
}

/** The same member object: group, kind, namespace and name (a version is only how it was read). */
export function sameObject(a: AppliedResource, b: AppliedResource): boolean {
  return apiGroup(a.apiVersion) === apiGroup(b.apiVersion) && a.kind === b.kind && (a.namespace ?? "") === (b.namespace ?? "") && a.name === b.name;
}

/** Whether the live object is the one the entry recorded: the same uid, or an entry without one (an older agent's record). */
export function sameApplied(entry: AppliedResource, live: KubeObject): boolean {
  return entry.uid === undefined || entry.uid === live.metadata.uid;
}

export function judgeMemberDeletion(f: MemberFacts): MemberVerdict {
  const { live, recorded } = f;
  const what = `${recorded.kind} ${recorded.namespace ? `${recorded.namespace}/` : ""}${recorded.name}`;
  if (live === undefined) return { delete: false, keep: "absent", message: `${what} is gone` };
  if (!isOurs(live, f.label, f.owner)) return { delete: false, keep: "notOurs", message: `kept ${what}: it no longer carries this Work's label, or another owner's` };
  if (!sameApplied(recorded, live)) {
    return { delete: false, keep: "replaced", message: `kept ${what}: it is not the object this Work applied (uid ${live.metadata.uid ?? "none"}, applied ${recorded.uid ?? ""})` };
  }
  if (f.sharedWith !== undefined) return { delete: false, keep: "shared", message: `kept ${what}: Work ${f.sharedWith} applied it too` };
  if (f.contents !== undefined) {
    const own = (o: KubeObject): boolean => {
      if (!isOurs(o, f.label, f.owner)) return false;
      const entry = recordedEntry(f.record, o);
      return entry !== undefined && sameApplied(entry, o);
    };
    const held = heldContents(f.contents, own);
    if (holdsAny(held)) return { delete: false, keep: "holds", message: keptMessage(recorded.kind, recorded.name, held) };
  }
  return { delete: true, uid: live.metadata.uid };
}

/**
 * Whether the deleter must list what a recorded object holds before the judge can decide: a
 * Namespace or CRD that is still the one this Work applied (its contents go with it).
 */
export function needsContents(live: KubeObject | undefined, recorded: AppliedResource, label: string, owner?: string): live is KubeObject {
  return isOurs(live, label, owner) && sameApplied(recorded, live) && cascades(recorded.apiVersion, recorded.kind);
}

/** Whether an object may be released (Flotilla's label and annotations taken off, the object kept): whichever object carries this Work's label now. */
export function mayRelease(live: KubeObject | undefined, label: string, owner?: string): live is KubeObject {
  return isOurs(live, label, owner);
}
