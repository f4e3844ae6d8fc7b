// The agent's deletes and releases of member objects (DESIGN §11). Every delete names the uid of
// the live object it decided on (a precondition), so an object replaced meanwhile is never
// deleted; a Namespace or CRD that holds objects Flotilla does not manage, or objects another Work
// or fleet places there, is kept and reported (unmanaged-contents.ts).
import { foreign, OWNER_ANNOTATION } from "./owner.ts";
import type { Logger } from "pino";
import { type KubeObject, LABELS } from "../shared/api/types.ts";
import type { Discovery } from "../shared/discovery.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../shared/kube-rest.ts";
import type { AppliedResource } from "./applied-store.ts";
import { crdContents, namespaceContents } from "./member-lists.ts";
import { type ObjectWatch, WORK_KEY_ANNOTATION } from "./object-watch.ts";
import { cascades, heldContents, holdsAny, keptMessage } from "./unmanaged-contents.ts";

/** Whether a live member object is this Work's to delete or release. */
export function isOurs(live: KubeObject | undefined, label: string, owner?: string): live is KubeObject {
  return live !== undefined && live.metadata.labels?.[LABELS.work] === label && live.metadata.labels?.[LABELS.managed] !== "false" && !foreign(live, owner);
}

/** The DeleteOptions of an agent's delete: only the object with this uid (an object replaced meanwhile stays). */
export function deleteOptions(uid: string | undefined): Record<string, unknown> {
  return { propagationPolicy: "Background", ...(uid !== undefined ? { preconditions: { uid } } : {}) };
}

/** Counters of deletions, by the reason the agent was given. */
export interface DeletionStats {
  deletes: number;
  deletesByReason: Map<string, number>;
}

/** Deletes and releases member objects a Work applied. */
export class MemberDeletion {
  private readonly rest: KubeRest;
  private readonly discovery: Discovery;
  private readonly objects: Pick<ObjectWatch, "get">;
  private readonly stats: DeletionStats;
  private readonly log: Logger;

  /** This agent's owner value (agent/owner.ts): another owner's object is never deleted. */
  private readonly owner: string | undefined;
  constructor(opts: { rest: KubeRest; discovery: Discovery; objects: Pick<ObjectWatch, "get">; stats: DeletionStats; log: Logger; owner?: string }) {
    this.owner = opts.owner;
    this.rest = opts.rest;
    this.discovery = opts.discovery;
    this.objects = opts.objects;
    this.stats = opts.stats;
    this.log = opts.log;
  }

  /**
   * Deletes a member object only while it still carries this Work's label, and only the object
   * seen (its uid); logs and counts it with its reason. Returns why it was kept instead (a
   * Namespace or CRD holding objects Flotilla does not manage or another Work places), or undefined.
   */
  async deleteIfOurs(key: string, r: AppliedResource, label: string, reason: string): Promise<string | undefined> {
    const res = await this.discovery.resourceFor(r.apiVersion, r.kind);
    if (res === undefined) return undefined;
    const live = await this.objects.get(res, r.namespace, r.name);
    if (!isOurs(live, label, this.owner)) return undefined;
    if (cascades(r.apiVersion, r.kind)) {
      const listed = r.kind === "Namespace" ? await namespaceContents(this.rest, r.name) : await crdContents(this.rest, live);
      const held = heldContents(listed, (o) => isOurs(o, label, this.owner));
      if (holdsAny(held)) {
        const message = keptMessage(r.kind, r.name, held);
        this.log.warn(
          { work: key, kind: r.kind, name: r.name, unmanaged: Object.fromEntries(held.unmanaged.byKind), otherWorks: Object.fromEntries(held.otherWorks.byKind), reason },
          "kept a member object that holds objects Flotilla does not manage or another Work places",
        );
        return message;
      }
    }
    const uid = live.metadata.uid;
    try {
      await this.rest.delete(objectPath(res, r.namespace, r.name), deleteOptions(uid));
    } catch (err) {
      if (isKubeStatus(err, 404)) return undefined;
      // 409: the uid precondition failed, the object was replaced since it was read: not the one decided on.
      if (!isKubeStatus(err, 409)) throw err;
      this.log.info({ work: key, kind: r.kind, namespace: r.namespace, name: r.name, uid, reason }, "member object not deleted: it was replaced meanwhile");
      return undefined;
    }
    this.stats.deletes++;
    this.stats.deletesByReason.set(reason, (this.stats.deletesByReason.get(reason) ?? 0) + 1);
    this.log.info({ work: key, kind: r.kind, namespace: r.namespace, name: r.name, uid, reason }, "member object deleted");
    return undefined;
  }

  /**
   * Deletes (or with `preserve` releases) a removed Work's objects, in the order given, each on its
   * own: returns why objects were kept, and what failed ("Kind/name: error").
   */
  async removeAll(key: string, resources: readonly AppliedResource[], label: string, preserve: boolean, reason: string): Promise<{ kept: string[]; failures: string[] }> {
    const kept: string[] = [];
    const failures: string[] = [];
    for (const r of resources) {
      try {
        const why = preserve ? await this.releaseIfOurs(r, label) : await this.deleteIfOurs(key, r, label, reason);
        if (why !== undefined) kept.push(why);
      } catch (err) {
        failures.push(`${r.kind}/${r.name}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return { kept, failures };
  }

  /** Leaves a member object in place without Flotilla's label and annotation: nothing manages it any more. */
  async releaseIfOurs(r: AppliedResource, label: string): Promise<void> {
    const res = await this.discovery.resourceFor(r.apiVersion, r.kind);
    if (res === undefined) return;
    const live = await this.objects.get(res, r.namespace, r.name);
    if (!isOurs(live, label, this.owner)) return;
    const patch = { metadata: { labels: { [LABELS.work]: null }, annotations: { [WORK_KEY_ANNOTATION]: null, [OWNER_ANNOTATION]: null } } };
    await this.rest.mergePatch(objectPath(res, r.namespace, r.name), patch).catch((err: unknown) => {
      if (!isKubeStatus(err, 404)) throw err;
    });
  }
}
