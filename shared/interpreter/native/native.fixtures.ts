// Test support for the native interpreters: the case shape (also what the Karmada oracle reads,
// see karmada-oracle/README.md), one runner for every operation, and the table runner.
import assert from "node:assert/strict";
import { it } from "node:test";
import type { KubeObject } from "../../api/types.ts";
import type { InterpreterOperation, StatusItem } from "../interpreter.ts";
import { divideJobCompletions, healthWord, type JobTarget, nativeInterpreterFor, reflectWholeStatus } from "./index.ts";

/** One sample object through one operation, with what Flotilla answers. */
export interface NativeCase {
  /** The behaviour; Karmada's answer is added to the test name from the recorded oracle results. */
  name: string;
  op: InterpreterOperation | "JobCompletions";
  object: KubeObject;
  observed?: KubeObject;
  replicas?: number;
  items?: StatusItem[];
  targets?: JobTarget[];
  uid?: string;
  /**
   * Flotilla's answer: InterpretReplica `{replica, requires}` (Karmada's result names),
   * AggregateStatus the `.status` written, JobCompletions cluster → completions, an operation the
   * kind lacks `{ notInterpreted: true }`, a failure `{ error: <substring> }`.
   */
  want: unknown;
  /** For InterpretHealth: Flotilla's word for the same object (healthWord). */
  word?: string;
  /** Why Flotilla's answer differs from Karmada's here, when it does on purpose. */
  differs?: string;
}

/** The case's result as Flotilla computes it, in the shape of `want`. */
export function runNative(c: NativeCase): unknown {
  const kind = nativeInterpreterFor(c.object);
  try {
    switch (c.op) {
      case "InterpretReplica": {
        if (!kind?.getReplicas) return { notInterpreted: true };
        const r = kind.getReplicas(c.object);
        return r.requires === undefined ? { replica: r.replicas } : { replica: r.replicas, requires: r.requires };
      }
      case "ReviseReplica":
        return kind?.reviseReplica ? kind.reviseReplica(c.object, c.replicas ?? 0) : { notInterpreted: true };
      case "Retain":
        return kind?.retain ? kind.retain(c.object, c.observed ?? c.object) : { notInterpreted: true };
      case "AggregateStatus":
        return kind?.aggregateStatus ? (kind.aggregateStatus(c.object, c.items ?? []).status ?? null) : { notInterpreted: true };
      case "InterpretStatus":
        return (kind?.reflectStatus ?? reflectWholeStatus)(c.object) ?? null;
      case "InterpretHealth":
        return kind?.interpretHealth ? kind.interpretHealth(c.object) : { notInterpreted: true };
      case "InterpretDependency":
        return kind?.getDependencies ? kind.getDependencies(c.object) : { notInterpreted: true };
      case "JobCompletions": {
        const m = divideJobCompletions(c.uid === undefined ? c.object : withUid(c.object, c.uid), c.targets ?? []);
        return m === undefined ? null : Object.fromEntries(m);
      }
      case "InterpretComponent":
        return { notInterpreted: true };
    }
  } catch (err) {
    return { error: (err as Error).message };
  }
}

function withUid(obj: KubeObject, uid: string): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, uid } };
}

/** One test per case: Flotilla's answer is `want`, and an InterpretHealth case's word is `word`. */
export function runCases(cases: readonly NativeCase[]): void {
  for (const c of cases) {
    it(`${c.object.kind} ${c.op}: ${c.name}`, () => {
      const got = runNative(c);
      const want = c.want as { error?: string };
      if (typeof want === "object" && want !== null && typeof want.error === "string") {
        assert.match(String((got as { error?: unknown }).error), new RegExp(want.error));
      } else {
        assert.deepEqual(got, c.want);
      }
      if (c.word !== undefined) assert.equal(healthWord(c.object).health, c.word);
    });
  }
}

/** Kubernetes objects as `kubectl get -o json` shows them, given the kind's fields (undefined fields left out). */
export function obj(apiVersion: string, kind: string, metadata: KubeObject["metadata"], rest: Record<string, unknown> = {}): KubeObject {
  return JSON.parse(JSON.stringify({ apiVersion, kind, metadata, ...rest })) as KubeObject;
}

/** A member's status item, as the status controller passes it. */
export function item(clusterName: string, status?: Record<string, unknown>): StatusItem {
  return status === undefined ? { clusterName, applied: true } : { clusterName, status, applied: true };
}
