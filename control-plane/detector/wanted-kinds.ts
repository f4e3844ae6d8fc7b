// The template kinds to watch: those policies select and those bindings reference, and with
// propagateDeps the kinds workloads refer to. Pure.
import type { PropagationPolicy } from "../../shared/api/types.ts";
import type { KindRef } from "./template-informers.ts";

const kindId = (k: KindRef) => `${k.apiVersion}|${k.kind}`;

/** The kinds the native interpreters' dependencies name (pod templates' and Ingress TLS': Karmada's supported types). */
const NATIVE_DEPENDENCY_KINDS: readonly KindRef[] = ["ConfigMap", "PersistentVolumeClaim", "Secret", "ServiceAccount"].map((kind) => ({ apiVersion: "v1", kind }));

/**
 * Every kind to watch, sorted (so two answers compare by kindsSignature). dependencyKinds: the
 * kinds that parents under propagateDeps refer to, beyond the native ones (a customization's
 * GetDependencies may name any kind, a CRD's too).
 */
export function wantedKinds(policies: readonly PropagationPolicy[], bindingKinds: readonly KindRef[], dependencyKinds: readonly KindRef[] = []): KindRef[] {
  const kinds = new Map<string, KindRef>();
  for (const p of policies) for (const s of p.spec.resourceSelectors ?? []) kinds.set(kindId(s), { apiVersion: s.apiVersion, kind: s.kind });
  for (const k of bindingKinds) kinds.set(kindId(k), k);
  // propagateDeps: what workloads refer to must be watched even when no policy selects it.
  if (policies.some((p) => p.spec.propagateDeps === true)) for (const k of NATIVE_DEPENDENCY_KINDS) kinds.set(kindId(k), k);
  for (const k of dependencyKinds) kinds.set(kindId(k), { apiVersion: k.apiVersion, kind: k.kind });
  return [...kinds.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, k]) => k);
}

/** The kinds as one string, to tell whether the set changed. */
export function kindsSignature(kinds: readonly KindRef[]): string {
  return kinds.map(kindId).join(",");
}

/** The kinds in `now` that are not in `before`. */
export function addedKinds(before: readonly KindRef[], now: readonly KindRef[]): KindRef[] {
  const had = new Set(before.map(kindId));
  return now.filter((k) => !had.has(kindId(k)));
}
