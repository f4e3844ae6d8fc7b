// A template's rollout revisions (issue 23), kept as apps/v1 ControllerRevisions: each holds the
// cleaned template as rendering reads it, so a cluster a rollout has not reached yet keeps being
// rendered from the revision it runs, by every replica, across restarts. One per template and
// revision: `<binding>-<revision digest>`, in the template's namespace (a cluster-scoped template's
// in the control plane's namespace), labelled with a digest of the template key, owned by the
// template (deleted with it). Only the leader writes them; every replica reads them from an
// informer. A revision a rollout still names is never pruned. A Secret template's values are kept
// out of its ControllerRevision, in a Secret of the same name (revision-secret.ts), read from an
// informer of those Secrets alone, and pruned with it.
import type { ControllerRevision, KubeObject, OwnerReference } from "../../shared/api/types.ts";
import { contentHash } from "../../shared/content-hash.ts";
import type { Informer } from "../../shared/informer.ts";
import { CONTROLLER_REVISIONS, ROLLOUT_OF_LABEL, SECRETS } from "../../shared/api/resources.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { holdsSecretValues, REVISION_SECRET_TYPE, revisionSecret, VALUES_IN_SECRET, withoutSecretValues, withSecretValues } from "./revision-secret.ts";

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
  /** namespace/name → the Secret holding a Secret template's revision (only those Flotilla labels). */
  private readonly valueSecrets = new Map<string, KubeObject>();
  private readonly listeners = new Set<(key: string) => void>();

  /**
   * namespace: where a cluster-scoped template's revisions live. secrets: the Secrets labelled
   * ROLLOUT_OF_LABEL (without it, a Secret template's revision is never found, and its rollout
   * goes out at once, as for a revision deleted by hand).
   */
  constructor(opts: { rest: KubeRest; namespace: string; informer: Informer<ControllerRevision>; secrets?: Informer<KubeObject> }) {
    this.rest = opts.rest;
    this.namespace = opts.namespace;
    this.informer = opts.informer;
    opts.secrets?.on({ add: (s) => this.fileSecret(s, false), update: (s) => this.fileSecret(s, false), delete: (s) => this.fileSecret(s, true) });
    const file = (cr: ControllerRevision, gone: boolean) => {
      const key = cr.metadata.annotations?.[TEMPLATE_KEY];
      const revision = cr.metadata.annotations?.[REVISION] ?? cr.metadata.annotations?.[VALUES_IN_SECRET];
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
    const secret = valuesInSecret(cr) ? this.secretOf(cr) : undefined;
    const template = valuesInSecret(cr) ? secret && withSecretValues(cr.data, secret) : cr.data;
    if (template === undefined) return undefined;
    const generation = Number(cr.metadata.annotations?.[GENERATION]);
    return { template, ...(Number.isInteger(generation) ? { generation } : {}) };
  }

  /** Stores a revision (the leader, before any rollout state names it); a stored one is left as it is. */
  async record(key: string, owner: KubeObject, bindingName: string, revision: string, cleaned: KubeObject): Promise<void> {
    const held = this.byKey.get(key);
    if (held?.has(revision)) return;
    const namespace = owner.metadata.namespace ?? this.namespace;
    const sequence = Math.max(0, ...[...(held?.values() ?? [])].map((c) => c.revision)) + 1;
    const metadata: KubeObject["metadata"] = {
      name: `${bindingName.slice(0, 240).replace(/[-.]+$/, "")}-${revision.slice(0, 10)}`,
      namespace,
      labels: { [ROLLOUT_OF_LABEL]: rolloutOfLabel(key) },
      annotations: { [TEMPLATE_KEY]: key, [REVISION]: revision, ...(owner.metadata.generation === undefined ? {} : { [GENERATION]: String(owner.metadata.generation) }) },
      ...(owner.metadata.uid ? { ownerReferences: [ownerOf(owner)] } : {}),
    };
    const secretValues = holdsSecretValues(cleaned);
    if (secretValues) {
      // The values first: a ControllerRevision that points at them is only written once they are kept.
      const secret = await this.rest.request<KubeObject>("POST", `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`, { body: revisionSecret(metadata, cleaned) }).catch((err: unknown) => {
        if (isKubeStatus(err, 409)) return undefined; // written already (a previous leader); a Secret of that name that is not ours is never read
        throw err;
      });
      if (secret !== undefined) this.fileSecret(secret, false);
    }
    // Without its values, the revision is named under another annotation (revision-secret.ts).
    const { [REVISION]: _revision, ...others } = metadata.annotations ?? {};
    const body: ControllerRevision = {
      apiVersion: "apps/v1",
      kind: "ControllerRevision",
      metadata: secretValues ? { ...metadata, annotations: { ...others, [VALUES_IN_SECRET]: revision } } : metadata,
      data: secretValues ? withoutSecretValues(cleaned) : cleaned,
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
    const ignoreGone = (err: unknown) => {
      if (!isKubeStatus(err, 404)) throw err;
    };
    for (const [, cr] of extra) {
      // Its values' Secret first: a failure leaves both, and the next prune tries again.
      const secret = valuesInSecret(cr) ? this.secretOf(cr) : undefined;
      if (secret !== undefined) await this.deleteSecret(secret);
      await this.rest.request("DELETE", objectPath(CONTROLLER_REVISIONS, cr.metadata.namespace, cr.metadata.name ?? "")).catch(ignoreGone);
    }
    // Values whose ControllerRevision was never written (the leader lost its lease in between) or is gone.
    const revisionNames = new Set([...(this.byKey.get(key)?.values() ?? [])].map((cr) => `${cr.metadata.namespace ?? ""}/${cr.metadata.name ?? ""}`));
    for (const [name, secret] of this.valueSecrets) {
      const revision = secret.metadata.annotations?.[REVISION];
      if (secret.metadata.annotations?.[TEMPLATE_KEY] !== key || revisionNames.has(name) || revision === undefined || inUse.has(revision)) continue;
      // Judged on the apiserver, not this replica's cache: a ControllerRevision its informer has
      // not heard of yet (a new leader) still needs its values.
      const path = objectPath(CONTROLLER_REVISIONS, secret.metadata.namespace, secret.metadata.name ?? "");
      const written = await this.rest.request("GET", path).then(
        () => true,
        (err: unknown) => {
          if (isKubeStatus(err, 404)) return false;
          throw err;
        },
      );
      if (!written) await this.deleteSecret(secret);
    }
    return extra.length;
  }

  /** Deletes one values Secret this store holds (labelled, of its type), only that object (its uid). */
  private async deleteSecret(secret: KubeObject): Promise<void> {
    if (secret.metadata.uid === undefined) return;
    await this.rest.request("DELETE", objectPath(SECRETS, secret.metadata.namespace, secret.metadata.name ?? ""), { body: { preconditions: { uid: secret.metadata.uid } } }).catch((err: unknown) => {
      if (!isKubeStatus(err, 404) && !isKubeStatus(err, 409)) throw err; // 409: another object of that name now
    });
  }

  private secretOf(cr: ControllerRevision): KubeObject | undefined {
    return this.valueSecrets.get(`${cr.metadata.namespace ?? ""}/${cr.metadata.name ?? ""}`);
  }

  private fileSecret(secret: KubeObject, gone: boolean): void {
    const name = `${secret.metadata.namespace ?? ""}/${secret.metadata.name ?? ""}`;
    if (gone || (secret as { type?: string }).type !== REVISION_SECRET_TYPE) this.valueSecrets.delete(name);
    else this.valueSecrets.set(name, secret);
    const key = secret.metadata.annotations?.[TEMPLATE_KEY];
    if (key !== undefined) for (const l of this.listeners) l(key);
  }

  private fileNow(key: string, revision: string, cr: ControllerRevision): void {
    const revisions = this.byKey.get(key) ?? new Map<string, ControllerRevision>();
    revisions.set(revision, cr);
    this.byKey.set(key, revisions);
    for (const l of this.listeners) l(key);
  }
}

function valuesInSecret(cr: ControllerRevision): boolean {
  return cr.metadata.annotations?.[VALUES_IN_SECRET] !== undefined;
}

function ownerOf(template: KubeObject): OwnerReference {
  return { apiVersion: template.apiVersion, kind: template.kind, name: template.metadata.name ?? "", uid: template.metadata.uid ?? "" };
}
