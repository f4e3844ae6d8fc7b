// Every sample case through both interpreters: Flotilla's native answer against Karmada's, as
// recorded by the oracle (karmada-oracle/README.md). Compared as Kubernetes reads them: Go's zero
// values (0, "", false, null, {} and []) count as absent, and a kind Karmada has no interpreter
// for matches a kind Flotilla has none for. A case marked `differs` must still differ.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { allCases, caseTitle } from "./cases.fixtures.ts";
import type { DependentObjectReference } from "../interpreter.ts";
import { type NativeCase, runNative } from "./native.fixtures.ts";
import { sortDependencies } from "./pod-template.ts";

interface OracleResult {
  name: string;
  result?: unknown;
  error?: string;
}

const recorded = JSON.parse(readFileSync(join(import.meta.dirname, "karmada-results.json"), "utf8")) as OracleResult[];
const byName = new Map(recorded.map((r) => [r.name, r]));

/** Go's zero values dropped, recursively; condition times dropped where Karmada writes the current time. */
function prune(v: unknown, dropTimes: boolean): unknown {
  if (v === null || v === "" || v === 0 || v === false) return undefined;
  if (Array.isArray(v)) {
    const list = v.map((x) => prune(x, dropTimes) ?? {});
    return list.length === 0 ? undefined : list;
  }
  if (typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (dropTimes && (k === "lastProbeTime" || k === "lastTransitionTime")) continue;
      const p = prune(x, dropTimes);
      if (p !== undefined) out[k] = p;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return v;
}

function flotillaAnswer(c: NativeCase): unknown {
  const got = runNative(c) as { error?: unknown; notInterpreted?: unknown } | null;
  if (got !== null && typeof got === "object" && ("error" in got || "notInterpreted" in got)) return { failed: true };
  return prune(got, isJobAggregate(c));
}

function karmadaAnswer(c: NativeCase, r: OracleResult): unknown {
  if (r.error !== undefined) return { failed: true };
  let result = c.op === "AggregateStatus" ? (r.result as { status?: unknown } | undefined)?.status : r.result;
  // Karmada lists dependencies in Go's map order; Flotilla sorts them.
  if (c.op === "InterpretDependency" && Array.isArray(result)) result = sortDependencies(result as DependentObjectReference[]);
  return prune(result, isJobAggregate(c));
}

function isJobAggregate(c: NativeCase): boolean {
  return c.op === "AggregateStatus" && c.object.kind === "Job";
}

function summary(r: OracleResult): string {
  if (r.error !== undefined) return r.error.includes("not found") ? "not interpreted" : "an error";
  if (typeof r.result === "boolean" || r.result === null || r.result === undefined) return String(r.result ?? "nothing");
  const text = JSON.stringify(r.result);
  return text.length > 70 ? `${text.slice(0, 67)}...` : text;
}

describe("native interpreters match Karmada's", () => {
  it("every case has a recorded Karmada result (regenerate with karmada-oracle/README.md)", () => {
    assert.deepEqual(
      allCases.map(caseTitle).filter((t) => !byName.has(t)),
      [],
    );
  });
  for (const c of allCases) {
    const r = byName.get(caseTitle(c));
    if (r === undefined) continue;
    const title = `${caseTitle(c)} → Karmada: ${summary(r)}`;
    it(c.differs === undefined ? title : `${title} (differs: ${c.differs})`, () => {
      if (c.differs === undefined) assert.deepEqual(flotillaAnswer(c), karmadaAnswer(c, r));
      else assert.notDeepEqual(flotillaAnswer(c), karmadaAnswer(c, r));
    });
  }
});
