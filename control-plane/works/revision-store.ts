// A template's rollout revisions (issue 23), kept as apps/v1 ControllerRevisions: each holds the
// cleaned template as rendering reads it, so a cluster a rollout has not reached yet keeps being
// rendered from the revision it runs, by every replica, across restarts. One per template and
// revision: `<binding>-<revision digest>`, in the template's namespace (a cluster-scoped template's
// in the control plane's namespace), labelled with a digest of the template key, owned by the
// template (deleted with it). Only the leader writes them; every replica reads them from an
// informer. A revision a rollout still names is never pruned.
import type { ControllerRevision, KubeObject, OwnerReference } from "../../shared/api/types.ts";
import { contentHash } from "../../shared/content-hash.ts";
import type { Informer } from "../../shared/informer.ts";
import { CONTROLLER_REVISIONS, ROLLOUT_OF_LABEL } from "../../shared/api/resources.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";

const TEMPLATE_KEY = "flotilla.dev/template-key";
const REVISION = "flotilla.dev/revision";
const GENERATION = "flotilla.dev/template-generation";

/** How many revisions of a template are kept (besides those a rollout names). */
export const REVISIONS_KEPT = 10;

/** A stored revision: the cleaned template and the generation it was seen at. */
export interface StoredRevision {
  template: KubeObject;
  generation?: number;
}

/** The label value for a template key (label values are at most 63 characters). */
export const rolloutOfLabel = (key: string) => contentHash(key);

export class RevisionStore {
  readonly informer: Informer<ControllerRevision>;
  private readonly rest: KubeRest;
  private readonly namespace: string;
  /** template key → revision → its ControllerRevision. */
  private readonly byKey = new Map<string, Map<string, ControllerRevision>>();
  private readonly listeners = new Set<(key: string) => void>();

  /** namespace: where a cluster-scoped template's revisions live. */
  constructor(opts: { rest: KubeRest; namespace: string; informer: Informer<ControllerRevision> }) {
    this.rest = opts.rest;
    this.namespace = opts.namespace;
    this.informer = opts.informer;
    const file = (cr: ControllerRevision, gone: boolean) => {
      const key = cr.metadata.annotations?.[TEMPLATE_KEY];
      const revision = cr.metadata.annotations?.[REVISION];
      if (key === undefined || revision === undefined) return;
      const revisions = this.byKey.get(key) ?? new Map<string, ControllerRevision>();
      if (gone) revisions.delete(revision);
      else revisions.set(revision, cr);
      if (revisions.size === 0) this.byKey.delete(key);
      else this.byKey.set(key, revisions);
      for (const l of this.listeners) l(key);
    };
    this.informer.on({ add: (cr) => file(cr, false), update: (cr) => file(cr, false), delete: (cr) => file(cr, true) });
  }

  /** Hears which template's revisions changed. */
  onChange(listener: (key: string) => void): void {
    this.listeners.add(listener);
  }

  get(key: string, revision: string): StoredRevision | undefined {
    const cr = this.byKey.get(key)?.get(revision);
    if (cr?.data === undefined) return undefined;
    const generation = Number(cr.metadata.annotations?.[GENERATION]);
    return { template: cr.data, ...(Number.isInteger(generation) ? { generation } : {}) };
  }

  /** Stores a revision (the leader, before any rollout state names it); a stored one is left as it is. */
  async record(key: string, owner: KubeObject, bindingName: string, revision: string, cleaned: KubeObject): Promise<void> {
    const held = this.byKey.get(key);
    if (held?.has(revision)) return;
    const namespace = owner.metadata.namespace ?? this.namespace;
    const sequence = Math.max(0, ...[...(held?.values() ?? [])].map((c) => c.revision)) + 1;
    const body: ControllerRevision = {
      apiVersion: "apps/v1",
      kind: "ControllerRevision",
      metadata: {
        name: `${bindingName.slice(0, 240).replace(/[-.]+$/, "")}-${revision.slice(0, 10)}`,
        namespace,
        labels: { [ROLLOUT_OF_LABEL]: rolloutOfLabel(key) },
        annotations: { [TEMPLATE_KEY]: key, [REVISION]: revision, ...(owner.metadata.generation === undefined ? {} : { [GENERATION]: String(owner.metadata.generation) }) },
        ...(owner.metadata.uid ? { ownerReferences: [ownerOf(owner)] } : {}),
      },
      data: cleaned,
      revision: sequence,
    };
    const created = await this.rest.request<ControllerRevision>("POST", `/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/controllerrevisions`, { body }).catch((err: unknown) => {
      if (isKubeStatus(err, 409)) return undefined; // written already (a previous leader, or a lagging cache)
      throw err;
    });
    // Filed at once: the state that names it may be written before the informer hears of it.
    if (created !== undefined) this.fileNow(key, revision, created);
  }

  /** Deletes the oldest revisions past REVISIONS_KEPT, never one `inUse` names. */
  async prune(key: string, inUse: ReadonlySet<string>): Promise<number> {
    const held = [...(this.byKey.get(key)?.entries() ?? [])].sort((a, b) => b[1].revision - a[1].revision);
    const extra = held.slice(REVISIONS_KEPT).filter(([revision]) => !inUse.has(revision));
    for (const [, cr] of extra) {
      await this.rest.request("DELETE", objectPath(CONTROLLER_REVISIONS, cr.metadata.namespace, cr.metadata.name ?? "")).catch((err: unknown) => {
        if (!isKubeStatus(err, 404)) throw err;
      });
    }
    return extra.length;
  }

  private fileNow(key: string, revision: string, cr: ControllerRevision): void {
    const revisions = this.byKey.get(key) ?? new Map<string, ControllerRevision>();
    revisions.set(revision, cr);
    this.byKey.set(key, revisions);
    for (const l of this.listeners) l(key);
  }
}

function ownerOf(template: KubeObject): OwnerReference {
  return { apiVersion: template.apiVersion, kind: template.kind, name: template.metadata.name ?? "", uid: template.metadata.uid ?? "" };
}
