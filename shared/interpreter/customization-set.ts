// The stored ResourceInterpreterCustomizations as one interpreter per kind (issue 21), the way
// Karmada's customized interpreter reads them: the customizations of a target are taken in name
// order, the first that gives an operation a script answers it, and InterpretDependency, which
// several may give, runs them all and joins their answers (sorted, no duplicates). A script left
// empty is no customization of its operation. Pure; `compile` builds the Lua side.
import type { CustomizationRules, ResourceInterpreterCustomization } from "../api/customization.ts";
import { canonicalJson, contentHash } from "../content-hash.ts";
import { type DependentObjectReference, type KindInterpreter, kindKey } from "./interpreter.ts";

/** Builds the interpreter of one customization's non-empty scripts. */
export type CustomizationCompiler = (rules: CustomizationRules) => KindInterpreter;

/** kindKey → the interpreter its customizations make; kinds without any are absent. */
export function interpretersByKind(customizations: readonly ResourceInterpreterCustomization[], compile: CustomizationCompiler): Map<string, KindInterpreter> {
  const byKind = new Map<string, ResourceInterpreterCustomization[]>();
  for (const c of customizations) {
    if (c.metadata.deletionTimestamp !== undefined || c.spec?.target === undefined) continue;
    const key = kindKey(c.spec.target.apiVersion, c.spec.target.kind);
    byKind.set(key, [...(byKind.get(key) ?? []), c]);
  }
  const out = new Map<string, KindInterpreter>();
  for (const [key, list] of byKind) {
    const compiled = [...list].sort((a, b) => ((a.metadata.name ?? "") < (b.metadata.name ?? "") ? -1 : 1)).map((c) => compile(nonEmpty(c.spec.customizations ?? {})));
    const merged: KindInterpreter = {};
    for (const i of compiled) {
      merged.getReplicas ??= i.getReplicas;
      merged.reviseReplica ??= i.reviseReplica;
      merged.retain ??= i.retain;
      merged.reflectStatus ??= i.reflectStatus;
      merged.aggregateStatus ??= i.aggregateStatus;
      merged.interpretHealth ??= i.interpretHealth;
      merged.getComponents ??= i.getComponents;
    }
    const deps = compiled.flatMap((i) => (i.getDependencies === undefined ? [] : [i.getDependencies]));
    if (deps.length === 1) merged.getDependencies = deps[0];
    else if (deps.length > 1) merged.getDependencies = (obj) => joinDependencies(deps.map((d) => d(obj)));
    const defined = Object.fromEntries(Object.entries(merged).filter(([, f]) => f !== undefined)) as KindInterpreter;
    if (Object.keys(defined).length > 0) out.set(key, defined);
  }
  return out;
}

/** The rules with a non-empty script. */
function nonEmpty(rules: CustomizationRules): CustomizationRules {
  return Object.fromEntries(Object.entries(rules).filter(([, r]) => typeof r?.luaScript === "string" && r.luaScript.trim() !== "")) as CustomizationRules;
}

/** Several scripts' dependencies as one list: sorted by apiVersion, kind, namespace, name, without duplicates. */
export function joinDependencies(lists: readonly DependentObjectReference[][]): DependentObjectReference[] {
  const seen = new Map<string, DependentObjectReference>();
  for (const d of lists.flat()) seen.set(JSON.stringify([d.apiVersion, d.kind, d.namespace, d.name ?? "", d.labelSelector ?? null]), d);
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, d]) => d);
}

/** kindKey → a digest of its customizations' specs: a kind whose digest changes needs its templates looked at again. */
export function customizationDigests(customizations: readonly ResourceInterpreterCustomization[]): Map<string, string> {
  const byKind = new Map<string, string[]>();
  for (const c of customizations) {
    if (c.metadata.deletionTimestamp !== undefined || c.spec?.target === undefined) continue;
    const key = kindKey(c.spec.target.apiVersion, c.spec.target.kind);
    byKind.set(key, [...(byKind.get(key) ?? []), canonicalJson([c.metadata.name ?? "", c.spec.customizations ?? {}])]);
  }
  return new Map([...byKind].map(([k, specs]) => [k, contentHash(specs.sort())]));
}

/** The kinds whose digest differs between two sets (added, removed or changed). Pure. */
export function changedKinds(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  return [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k)).sort();
}
