// The agent's deletes and releases of member objects (DESIGN §11): the I/O shell around
// judge/deletion-judge.ts, which decides. Every delete names the uid of the live object judged (a
// precondition), so an object replaced meanwhile is never deleted; what the judge keeps is logged,
// and what holds a Namespace or CRD is reported (the removal waits and is tried again).
import { WORK_KEY_ANNOTATION } from "../../shared/work-key.ts";
import { ADOPTABLE_LABELS, OWNER_ANNOTATION } from "../judge/owner.ts";
import type { Logger } from "pino";
import { LABELS } from "../../shared/api/types.ts";
import type { Discovery } from "../../shared/discovery.ts";
import { isKubeStatus, type KubeRest, objectPath, type ResourceInfo } from "../../shared/kube-rest.ts";
import type { AppliedResource } from "../judge/applied-record.ts";
import { judgeMemberDeletion, mayRelease, needsContents } from "../judge/deletion-judge.ts";
import { crdContents, namespaceContents } from "./member-lists.ts";
import type { ObjectWatch } from "./object-watch.ts";

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

  /** This agent's owner value (agent/judge/owner.ts): another owner's object is never deleted. */
  private readonly owner: string | undefined;
  /** Another Work whose record names the same object, if any (WorkRunner's records). */
  private readonly sharedWith: (key: string, r: AppliedResource) => string | undefined;
  constructor(opts: {
    rest: KubeRest;
    discovery: Discovery;
    objects: Pick<ObjectWatch, "get">;
    stats: DeletionStats;
    log: Logger;
    owner?: string;
    sharedWith?: (key: string, r: AppliedResource) => string | undefined;
  }) {
    this.owner = opts.owner;
    this.sharedWith = opts.sharedWith ?? (() => undefined);
    this.rest = opts.rest;
    this.discovery = opts.discovery;
    this.objects = opts.objects;
    this.stats = opts.stats;
    this.log = opts.log;
  }

  /**
   * Deletes a member object when the judge (deletion-judge.ts) says it is the one this Work
   * applied and nothing anyone else wants goes with it; logs and counts it with its reason. Returns
   * why a Namespace or CRD was kept (it holds what another Work or nobody in Flotilla placed), or
   * undefined. `record`: every object this Work's record names.
   */
  async deleteIfOurs(key: string, r: AppliedResource, label: string, reason: string, record: readonly AppliedResource[] = [r]): Promise<string | undefined> {
    const res = await this.discovery.resourceFor(r.apiVersion, r.kind);
    if (res === undefined) return undefined;
    const live = await this.objects.get(res, r.namespace, r.name);
    const contents = needsContents(live, r, label, this.owner) ? (r.kind === "Namespace" ? await namespaceContents(this.rest, r.name) : await crdContents(this.rest, live)) : undefined;
    const sharedWith = this.sharedWith(key, r);
    const verdict = judgeMemberDeletion({ live, recorded: r, label, ...(this.owner !== undefined ? { owner: this.owner } : {}), ...(contents !== undefined ? { contents } : {}), record, ...(sharedWith !== undefined ? { sharedWith } : {}) });
    if (!verdict.delete) {
      if (verdict.keep === "holds") {
        this.log.warn({ work: key, kind: r.kind, name: r.name, reason, why: verdict.message }, "kept a member object that holds objects Flotilla does not manage or another Work places");
        return verdict.message;
      }
      if (verdict.keep === "shared") this.log.info({ work: key, kind: r.kind, namespace: r.namespace, name: r.name, reason, why: verdict.message }, "kept a member object another Work applied too");
      if (verdict.keep === "replaced") {
        // Not Flotilla's object: it keeps running, without Flotilla's label (else a later restart would adopt it as an orphan).
        this.log.warn({ work: key, kind: r.kind, namespace: r.namespace, name: r.name, reason, why: verdict.message }, "kept a member object: not the one this Work applied; released from Flotilla");
        await this.unlabel(res, r);
      }
      return undefined;
    }
    const uid = verdict.uid;
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
        const why = preserve ? await this.releaseIfOurs(r, label) : await this.deleteIfOurs(key, r, label, reason, resources);
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
    // Whichever object carries this Work's label now (the one applied, or one made again since): it stays, released.
    if (!mayRelease(live, label, this.owner)) return;
    await this.unlabel(res, r);
  }

  /**
   * Takes Flotilla's label and annotations off a member object, which stays: nothing manages it any
   * more; and the adopted-from system's label (judge/owner.ts ADOPTABLE_LABELS), so no template
   * marked for adoption takes it over again.
   */
  private async unlabel(res: ResourceInfo, r: AppliedResource): Promise<void> {
    const patch = { metadata: { labels: { [LABELS.work]: null, ...Object.fromEntries(ADOPTABLE_LABELS.map((l) => [l, null])) }, annotations: { [WORK_KEY_ANNOTATION]: null, [OWNER_ANNOTATION]: null } } };
    await this.rest.mergePatch(objectPath(res, r.namespace, r.name), patch).catch((err: unknown) => {
      if (!isKubeStatus(err, 404)) throw err;
    });
  }
}
