// Applies one manifest of a Work to the member (I/O): conflict decision (apply-decision.ts), the
// member's own fields kept (retain.ts), server-side apply into its namespace (created if missing,
// created again when deleted by hand: namespaces.ts).
import type { Logger } from "pino";
import type { KubeObject } from "../../shared/api/types.ts";
import type { Discovery } from "../../shared/discovery.ts";
import { isKubeStatus, type KubeRest, objectPath, type ResourceInfo } from "../../shared/kube-rest.ts";
import type { AppliedStore } from "../applied/applied-store.ts";
import { containsFields, decideApply } from "./apply-decision.ts";
import { createOnly } from "./create-only.ts";
import type { HpaIndex } from "./hpa-index.ts";
import { namespaceFailureOf, Namespaces } from "./namespaces.ts";
import { CREATE_NAMESPACE_ANNOTATION } from "../../shared/api/mcs.ts";
import type { ObjectWatch } from "../applied/object-watch.ts";
import { isScalable, retainByCustomization, retainMemberOwned } from "./retain.ts";
import { errorMessage, withOwnership } from "./work-manifests.ts";
import { type CustomizedInterpreter, INTERPRETER_FAILED, type ManifestOutcome } from "../status/work-status.ts";

const FIELD_MANAGER = "flotilla-agent";

/** How many times an apply over member-owned replicas reads again when the object changed since it was read. */
const RETAIN_TRIES = 5;

/** How long an apply of a live scalable workload waits for the member's HPAs to be listed (an agent's start). */
export const HPA_LIST_WAIT_MS = 10_000;

/** What reads and writes the member: the work runner's and the applier's. */
export interface MemberAccess {
  rest: KubeRest;
  discovery: Discovery;
  applied: AppliedStore;
  objects: ObjectWatch;
}

/** Applies manifests for the work runner. */
export class ManifestApplier {
  private readonly rest: KubeRest;
  private readonly discovery: Discovery;
  private readonly applied: AppliedStore;
  private readonly objects: ObjectWatch;
  private readonly hpas: HpaIndex | undefined;
  private readonly namespaces: Namespaces;
  private readonly counts: { applies: number; createConflicts: number };
  private readonly log: Logger;

  private readonly owner: string | undefined;
  private readonly customized: CustomizedInterpreter;

  constructor(opts: MemberAccess & {
    hpas: HpaIndex | undefined;
    counts: { applies: number; createConflicts: number };
    log: Logger;
    owner?: string;
    /** The kinds' customized operations: a customization's Retain keeps what the member owns. */
    customized?: CustomizedInterpreter;
  }) {
    this.owner = opts.owner;
    this.customized = opts.customized ?? (() => undefined);
    this.rest = opts.rest;
    this.discovery = opts.discovery;
    this.applied = opts.applied;
    this.objects = opts.objects;
    this.hpas = opts.hpas;
    this.namespaces = new Namespaces(opts.rest);
    this.counts = opts.counts;
    this.log = opts.log;
  }

  /**
   * Whether a member HPA scales this workload (its replicas are then the member's); undefined while
   * the member's HPAs are not listed. A live workload waits for that list up to HPA_LIST_WAIT_MS.
   */
  private async scaledByHpa(manifest: KubeObject, namespace: string | undefined, name: string, live: KubeObject | undefined): Promise<boolean | undefined> {
    if (this.hpas === undefined || namespace === undefined || !isScalable(manifest.apiVersion, manifest.kind)) return false;
    if (live !== undefined) await this.hpas.whenListed(HPA_LIST_WAIT_MS);
    else this.hpas.ensure();
    const scaled = this.hpas.scales(namespace, manifest.apiVersion, manifest.kind, name);
    if (scaled === undefined && live !== undefined) this.log.warn({ namespace, kind: manifest.kind, name }, "the member's HorizontalPodAutoscalers are not listed yet: keeping the workload's replicas as they are");
    return scaled;
  }

  /**
   * Applies one manifest of a Work (server-side apply), deciding conflicts with apply-decision.ts.
   * An object the synced watch cache does not hold is created without reading it first
   * (create-only.ts); when it turns out to exist, it is read and decided on like any other.
   */
  async applyManifest(key: string, label: string, manifest: KubeObject, conflictResolution: string, full: boolean, read = false, retainTries = 0): Promise<ManifestOutcome> {
    const res = await this.discovery.resourceFor(manifest.apiVersion, manifest.kind);
    if (res === undefined) {
      return { manifest, applied: false, reason: "CreationFailed", message: `the member does not serve ${manifest.kind} in ${manifest.apiVersion}` };
    }
    const namespace = res.namespaced ? manifest.metadata.namespace || "default" : undefined;
    const name = manifest.metadata.name ?? "";
    const unseen = !read && this.objects.unseen(res, namespace, name);
    let live: KubeObject | undefined;
    try {
      live = unseen ? undefined : await this.objects.get(res, namespace, name);
    } catch (err) {
      return { manifest, applied: false, reason: "RetrievalFailed", message: errorMessage(err) };
    }
    const decision = decideApply(live, label, conflictResolution, this.owner, manifest);
    if (decision.action === "skip") return { manifest, applied: false, reason: decision.reason, message: decision.message };
    const retained = retainByCustomization(manifest, live, this.customized(manifest));
    if ("failure" in retained) return { manifest, applied: false, reason: INTERPRETER_FAILED, message: retained.failure, ...(live === undefined ? {} : { live }) };
    const scaled = await this.scaledByHpa(manifest, namespace, name, live);
    // Replicas the member owns (an HPA scales it, or may): taken from the object as the apiserver has
    // it now, not the cache, and applied only over that very version (its resourceVersion; a
    // conflict reads and decides again), so an HPA's write in between is never set back (issue 37:
    // the chaos run saw a lagging cache's value written over the HPA's).
    let over: string | undefined;
    if (scaled !== false && live !== undefined && isScalable(manifest.apiVersion, manifest.kind)) {
      try {
        live = await this.objects.read(res, namespace, name);
      } catch (err) {
        return { manifest, applied: false, reason: "RetrievalFailed", message: errorMessage(err) };
      }
      over = live?.metadata.resourceVersion;
    }
    const owned = retainMemberOwned(withOwnership(retained.desired, key, label, namespace, this.owner), live, scaled);
    const desired = over === undefined ? owned : { ...owned, metadata: { ...owned.metadata, resourceVersion: over } };
    this.objects.ensure(res);
    if (!full && live !== undefined && containsFields(live, owned)) return { manifest, applied: true, reason: "", message: "", live };
    try {
      await this.applied.ensureKind(manifest.apiVersion, manifest.kind);
      live = await this.applyIn(res, namespace, name, unseen ? createOnly(owned) : desired, mayCreateNamespace(manifest));
      return { manifest, applied: true, reason: "", message: "", live };
    } catch (err) {
      if (unseen && isKubeStatus(err, 409)) {
        this.counts.createConflicts++;
        return this.applyManifest(key, label, manifest, conflictResolution, full, true);
      }
      // Changed since it was read (an HPA scaled it): read and decide again, a few times.
      if (over !== undefined && isKubeStatus(err, 409) && retainTries < RETAIN_TRIES) return this.applyManifest(key, label, manifest, conflictResolution, full, read, retainTries + 1);
      const failure = namespace === undefined ? undefined : namespaceFailureOf(err, namespace);
      // Terminating, or absent where the manifest may not create it (an import, issue 40): wait for it.
      const waits = failure === "terminating" || (failure === "gone" && !mayCreateNamespace(manifest));
      const waiting = namespace !== undefined && waits ? { waitingForNamespaceMs: this.namespaces.terminating(namespace) } : {};
      return { manifest, applied: false, reason: live === undefined ? "CreationFailed" : "UpdateFailed", message: errorMessage(err), ...waiting };
    }
  }

  /**
   * Applies into the object's namespace, creating it if missing. A namespace deleted since the
   * agent saw it is forgotten (issue 20, item 8): when it is gone it is created again at once,
   * when it is still being deleted the next try creates it.
   */
  private async applyIn(res: ResourceInfo, namespace: string | undefined, name: string, desired: KubeObject, createNamespace: boolean): Promise<KubeObject> {
    for (let attempt = 0; ; attempt++) {
      try {
        if (namespace !== undefined && createNamespace) await this.namespaces.ensure(namespace);
        this.counts.applies++;
        return await this.rest.apply<KubeObject>(objectPath(res, namespace, name), desired, FIELD_MANAGER, true);
      } catch (err) {
        // Terminating: the caller waits for it to go (Namespaces.terminating). Gone: created again now, once.
        if (namespace === undefined || !createNamespace || namespaceFailureOf(err, namespace) !== "gone") throw err;
        this.namespaces.forget(namespace);
        if (attempt > 0) throw err;
        this.log.info({ namespace }, "the namespace of an applied object is gone; creating it again");
      }
    }
  }
}

/** Whether applying a manifest may create its namespace: not when it says "false" (CREATE_NAMESPACE_ANNOTATION, issue 40). */
export function mayCreateNamespace(manifest: KubeObject): boolean {
  return manifest.metadata.annotations?.[CREATE_NAMESPACE_ANNOTATION] !== "false";
}
