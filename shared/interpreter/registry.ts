// Which interpreter answers for a kind (issue 21): its ResourceInterpreterCustomizations first,
// operation by operation, then its native interpreter (Karmada's precedence). The control plane
// keeps one registry and replaces its customizations when they change; callers ask it for a
// template's interpreter and pass that to the pure functions that divide, revise and sum.
import type { KubeObject } from "../api/types.ts";
import { type KindInterpreter, kindKey } from "./interpreter.ts";
import { nativeInterpreters } from "./native/index.ts";

const OPERATION_FUNCTIONS: readonly (keyof KindInterpreter)[] = [
  "getReplicas",
  "reviseReplica",
  "retain",
  "reflectStatus",
  "aggregateStatus",
  "interpretHealth",
  "getDependencies",
  "getComponents",
];

/** Each operation from `first` when it has it, else from `second`. Pure. */
export function mergeInterpreters(first: KindInterpreter, second: KindInterpreter): KindInterpreter {
  const out: Record<string, unknown> = {};
  for (const op of OPERATION_FUNCTIONS) {
    const f = first[op] ?? second[op];
    if (f !== undefined) out[op] = f;
  }
  return out as KindInterpreter;
}

export class InterpreterRegistry {
  private customized: ReadonlyMap<string, KindInterpreter> = new Map();
  private readonly merged = new Map<string, KindInterpreter | undefined>();

  /** Replaces the customizations: kindKey → what the customizations of that kind define. */
  setCustomizations(byKind: ReadonlyMap<string, KindInterpreter>): void {
    this.customized = new Map(byKind);
    this.merged.clear();
  }

  /** The interpreter of an object's kind: its customization's operations over its native ones; undefined when it has neither. */
  for(obj: Pick<KubeObject, "apiVersion" | "kind">): KindInterpreter | undefined {
    const key = kindKey(obj.apiVersion, obj.kind);
    if (this.merged.has(key)) return this.merged.get(key);
    const custom = this.customized.get(key);
    const native = nativeInterpreters.get(key);
    const out = custom === undefined ? native : native === undefined ? custom : mergeInterpreters(custom, native);
    this.merged.set(key, out);
    return out;
  }

}

/** A registry of the native interpreters alone: for callers and tests without customizations. */
export const NATIVE_INTERPRETERS = new InterpreterRegistry();
