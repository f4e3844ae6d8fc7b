// Bindings by what per-event work looks them up by, so that one cluster's or one policy's change
// costs what it affects and not the size of the fleet: the clusters a binding involves and the
// policy that placed it. Pure: fed the bindings informers' events (Caches does), keyed by template key.
import type { ResourceBinding } from "../../shared/api/types.ts";
import { bindingPolicyId, policyIdOf } from "../scheduling/policy-match.ts";
import { templateKeyOfBinding } from "../../shared/work-key.ts";

/** A policy's identity as a binding's labels name it: "namespace/name", "/name" for a ClusterPropagationPolicy. */
export const policyId = policyIdOf;

export { bindingPolicyId };

/** The clusters a binding places on: its targets and the clusters it is still evicting from. */
export function targetsOf(b: ResourceBinding): string[] {
  return [...b.spec.clusters.map((c) => c.name), ...evictingOf(b)];
}

/** The clusters a binding keeps a copy on while it is replaced elsewhere (graceful eviction). */
export function evictingOf(b: ResourceBinding): string[] {
  return (b.spec.gracefulEvictionTasks ?? []).map((t) => t.fromCluster);
}

/** The clusters a binding's status has an entry for (they may still hold its object). */
export function reportingOf(b: ResourceBinding): string[] {
  return (b.status?.aggregatedStatus ?? []).map((i) => i.clusterName);
}

/**
 * What changes when anything but a binding's status does: the apiserver bumps generation on each
 * spec change (bindings have a status subresource); deletion, finalizers and labels are metadata.
 * Without a generation (not from an apiserver), the spec itself.
 */
export function nonStatusVersion(b: ResourceBinding): string {
  const m = b.metadata;
  return JSON.stringify([m.uid, m.generation ?? b.spec, m.deletionTimestamp, m.finalizers, m.labels]);
}

/** What a key was filed under, to unfile it when its binding changes or goes. */
interface Filed {
  binding: ResourceBinding;
  targets: string[];
  evicting: string[];
  reporting: string[];
  policy: string | undefined;
  /** Its template's kind, and those of the templates its requiredBy names (a dependency's parents: watched while it names them). */
  kinds: string[];
  /** What besides status the binding says (see nonStatusVersion). */
  version: string;
  /** The last set() changed its status only. */
  statusOnly: boolean;
}

/** A template kind, as bindings name it. */
export interface BindingKind {
  apiVersion: string;
  kind: string;
}

const kindId = (k: BindingKind) => `${k.apiVersion}|${k.kind}`;

export class BindingIndex {
  private readonly byKey = new Map<string, Filed>();
  private readonly byTarget = new Map<string, Set<string>>();
  private readonly byEvicting = new Map<string, Set<string>>();
  private readonly byReporting = new Map<string, Set<string>>();
  private readonly byPolicy = new Map<string, Set<string>>();
  private readonly byKind = new Map<string, Set<string>>();
  private kindsChanged = 0;

  /** A binding was added or updated. */
  set(b: ResourceBinding): void {
    const key = keyOf(b);
    if (key === undefined) return;
    const version = nonStatusVersion(b);
    const statusOnly = this.byKey.get(key)?.version === version;
    this.unfile(key);
    const filed: Filed = {
      version,
      statusOnly, binding: b, targets: [...new Set(targetsOf(b))], evicting: [...new Set(evictingOf(b))], reporting: [...new Set(reportingOf(b))], policy: bindingPolicyId(b), kinds: kindsOf(b) };
    this.byKey.set(key, filed);
    for (const c of filed.targets) file(this.byTarget, c, key);
    for (const c of filed.evicting) file(this.byEvicting, c, key);
    for (const c of filed.reporting) file(this.byReporting, c, key);
    if (filed.policy !== undefined) file(this.byPolicy, filed.policy, key);
    for (const k of filed.kinds) if (file(this.byKind, k, key)) this.kindsChanged++;
  }

  /** A binding was deleted. */
  delete(b: ResourceBinding): void {
    const key = keyOf(b);
    if (key !== undefined) this.unfile(key);
  }

  /** The binding of a template key. */
  get(key: string): ResourceBinding | undefined {
    return this.byKey.get(key)?.binding;
  }

  /**
   * Whether the binding's last add or update changed nothing but its status (its agents'
   * reports): what reads only spec and metadata has nothing to do. Read it in an update handler.
   */
  statusOnly(key: string): boolean {
    return this.byKey.get(key)?.statusOnly ?? false;
  }

  get size(): number {
    return this.byKey.size;
  }

  /** Keys of the bindings that place on the cluster (targets or graceful eviction). */
  targeting(cluster: string): string[] {
    return [...(this.byTarget.get(cluster) ?? [])];
  }

  /** Keys of the bindings that keep a copy on the cluster while it is replaced elsewhere. */
  evictingFrom(cluster: string): string[] {
    return [...(this.byEvicting.get(cluster) ?? [])];
  }

  /** How many bindings' status lists the cluster (an unjoin waits for them). */
  reportingCount(cluster: string): number {
    return this.byReporting.get(cluster)?.size ?? 0;
  }

  /** Keys of the bindings that place on the cluster or whose status lists it. */
  involving(cluster: string): string[] {
    return [...new Set([...(this.byTarget.get(cluster) ?? []), ...(this.byReporting.get(cluster) ?? [])])];
  }

  /** The bindings that place on the cluster or whose status lists it. */
  bindingsInvolving(cluster: string): ResourceBinding[] {
    return this.involving(cluster).map((k) => this.byKey.get(k)?.binding as ResourceBinding);
  }

  /** Keys of the bindings the policy (by policyId) placed. */
  placedBy(policy: string): string[] {
    return [...(this.byPolicy.get(policy) ?? [])];
  }

  /** The kinds some binding references: its template's, or (a dependency's) a parent's its requiredBy names. */
  kinds(): BindingKind[] {
    return [...this.byKind.keys()].map((id) => {
      const [apiVersion = "", kind = ""] = id.split("|");
      return { apiVersion, kind };
    });
  }

  /** Keys of the bindings of a kind: its templates', and the dependencies whose requiredBy names one. */
  ofKind(k: BindingKind): string[] {
    return [...(this.byKind.get(kindId(k)) ?? [])];
  }

  /** Grows each time a kind gains its first binding or loses its last: compare to see whether kinds() changed. */
  get kindsVersion(): number {
    return this.kindsChanged;
  }

  private unfile(key: string): void {
    const filed = this.byKey.get(key);
    if (filed === undefined) return;
    this.byKey.delete(key);
    for (const c of filed.targets) unfile(this.byTarget, c, key);
    for (const c of filed.evicting) unfile(this.byEvicting, c, key);
    for (const c of filed.reporting) unfile(this.byReporting, c, key);
    if (filed.policy !== undefined) unfile(this.byPolicy, filed.policy, key);
    for (const k of filed.kinds) if (unfile(this.byKind, k, key)) this.kindsChanged++;
  }
}

/** The binding's template's kind, and its requiredBy's templates' kinds, once each. */
function kindsOf(b: ResourceBinding): string[] {
  return [...new Set([kindId(b.spec.resource), ...(b.spec.requiredBy ?? []).flatMap((r) => (r.resource === undefined ? [] : [kindId(r.resource)]))])];
}

/** A binding whose resource does not make a key is not indexed (nothing could look it up). */
function keyOf(b: ResourceBinding): string | undefined {
  try {
    return templateKeyOfBinding(b);
  } catch {
    return undefined;
  }
}

/** Files key at `at`; true when `at` had no key before. */
function file(m: Map<string, Set<string>>, at: string, key: string): boolean {
  const keys = m.get(at);
  if (keys !== undefined) {
    keys.add(key);
    return false;
  }
  m.set(at, new Set([key]));
  return true;
}

/** Unfiles key from `at`; true when `at` has no key left. */
function unfile(m: Map<string, Set<string>>, at: string, key: string): boolean {
  const keys = m.get(at);
  if (keys === undefined) return false;
  keys.delete(key);
  if (keys.size > 0) return false;
  m.delete(at);
  return true;
}
