// Karmada's third-party customizations run through this runtime against Karmada's own test
// cases (resourcecustomizations/<group>/<version>/<Kind>/{customizations.yaml,testdata/*.yaml}),
// compared as Karmada's thirdparty_test.go compares them. A few are committed as fixtures under
// testdata/thirdparty; KARMADA_THIRDPARTY_DIR=<karmada>/pkg/resourceinterpreter/default/thirdparty/resourcecustomizations
// runs all of Karmada's.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import type { KubeObject } from "../../api/types.ts";
import type { StatusItem } from "../interpreter.ts";
import { LuaInterpreterRuntime, type LuaCustomizations } from "./runtime.ts";
import { componentList, replicaRequirements } from "./results.ts";
import type { JsonValue } from "./convert.ts";

interface Case {
  name: string;
  operation: string;
  desiredObj?: KubeObject;
  observedObj?: KubeObject;
  statusItems?: StatusItem[];
  inputReplicas?: number;
  output?: Record<string, unknown>;
}

const rt = new LuaInterpreterRuntime();

/** Every directory under `root` that holds a customizations.yaml. */
function customizationDirs(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    if (existsSync(path.join(dir, "customizations.yaml"))) out.push(dir);
    for (const e of readdirSync(dir)) if (e !== "testdata" && statSync(path.join(dir, e)).isDirectory()) walk(path.join(dir, e));
  };
  walk(root);
  return out.sort();
}

/** The YAML documents of a file; throws when the YAML parser refuses one (Go's yaml.v2 is laxer). */
function docs(file: string): unknown[] {
  const all = parseAllDocuments(readFileSync(file, "utf8"));
  const bad = all.find((d) => d.errors.length > 0);
  if (bad) throw new Error(`${file}: ${bad.errors[0]?.message}`);
  return all.map((d) => d.toJS() as unknown).filter((d) => d !== null && d !== undefined);
}

/** Karmada's {{EXCLUDE}}: paths whose expected value is the placeholder are left out of both sides. */
function withoutExcluded(expected: unknown, actual: unknown): [unknown, unknown] {
  const excluded = new Set<string>();
  const strip = (v: unknown, p: string[], collecting: boolean): unknown => {
    if (Array.isArray(v)) return v.map((c, i) => strip(c, [...p, String(i)], collecting));
    if (typeof v !== "object" || v === null) return v;
    const out: Record<string, unknown> = {};
    for (const [k, c] of Object.entries(v)) {
      const key = [...p, k].join(".");
      if (collecting && c === "{{EXCLUDE}}") excluded.add(key);
      else if (!excluded.has(key)) out[k] = strip(c, [...p, k], collecting);
    }
    return out;
  };
  const e = strip(expected, [], true);
  return [e, strip(actual, [], false)];
}

const byDependency = (a: Record<string, string>, b: Record<string, string>) =>
  [a.apiVersion, a.kind, a.namespace, a.name].join("\0") < [b.apiVersion, b.kind, b.namespace, b.name].join("\0") ? -1 : 1;

/** Runs one case; returns Karmada's result names → values. */
function run(c: LuaCustomizations, t: Case): Record<string, unknown> {
  const i = rt.interpreter(c);
  const desired = t.desiredObj as KubeObject;
  const observed = t.observedObj as KubeObject;
  switch (t.operation) {
    case "Retain":
      return { retained: i.retain?.(desired, observed) };
    case "InterpretReplica": {
      const r = i.getReplicas?.(desired ?? observed);
      return { replica: r?.replicas, requires: r?.requires ?? null };
    }
    case "ReviseReplica":
      return { revised: i.reviseReplica?.(desired ?? observed, t.inputReplicas ?? 0) };
    case "InterpretStatus":
      return { status: i.reflectStatus?.(observed) };
    case "AggregateStatus":
      return { aggregatedStatus: c.statusAggregation ? rt.aggregateStatus(c.statusAggregation.luaScript, desired, t.statusItems ?? null) : undefined };
    case "InterpretHealth":
      return { healthy: i.interpretHealth?.(observed) };
    case "InterpretDependency":
      return { dependencies: i.getDependencies?.(desired ?? observed) };
    case "InterpretComponent":
      return { components: i.getComponents?.(desired ?? observed) };
    default:
      throw new Error(`unknown operation ${t.operation}`);
  }
}

function compare(name: string, expected: unknown, actual: unknown): void {
  const json = (v: unknown) => JSON.parse(JSON.stringify(v ?? null)) as JsonValue;
  switch (name) {
    case "retained":
    case "revised":
    case "aggregatedStatus": {
      const [e, a] = withoutExcluded(json(expected), json(actual));
      return assert.deepEqual(a, e);
    }
    case "requires":
      return assert.deepEqual(json(actual), expected === null || expected === undefined ? null : json(replicaRequirements(json(expected))));
    case "dependencies":
      return assert.deepEqual(
        (json(actual) as Record<string, string>[]).sort(byDependency),
        ((json(expected) ?? []) as Record<string, string>[]).sort(byDependency),
      );
    case "components": {
      const sorted = (v: JsonValue) => componentList(v).sort((x, y) => (x.name < y.name ? -1 : 1));
      return assert.deepEqual(sorted(json(actual)), sorted(json(expected) ?? []));
    }
    default:
      return assert.deepEqual(json(actual), json(expected));
  }
}

function suite(root: string): void {
  for (const dir of customizationDirs(root)) {
    const customizations = docs(path.join(dir, "customizations.yaml")) as { spec: { customizations: LuaCustomizations } }[];
    const testdata = path.join(dir, "testdata");
    const files = existsSync(testdata) ? readdirSync(testdata).sort() : [];
    const cases: Case[] = [];
    const unreadable: string[] = [];
    for (const f of files) {
      try {
        cases.push(...(docs(path.join(testdata, f)) as Case[]));
      } catch (e) {
        unreadable.push((e as Error).message);
      }
    }
    describe(path.relative(root, dir), () => {
      for (const message of unreadable) it(`test input the YAML parser refuses`, { skip: message.slice(0, 300) }, () => {});
      for (const c of customizations) {
        for (const t of cases) {
          it(`${t.operation}: ${t.name}`, () => {
            const results = run(c.spec.customizations, t);
            for (const [name, expected] of Object.entries(t.output ?? {})) {
              assert.ok(name in results, `no result ${name}`);
              compare(name, expected, results[name]);
            }
          });
        }
      }
    });
  }
}

describe("Karmada's third-party customizations (committed fixtures)", () => suite(path.join(import.meta.dirname, "testdata", "thirdparty")));
if (process.env.KARMADA_THIRDPARTY_DIR) describe("all of Karmada's third-party customizations", () => suite(process.env.KARMADA_THIRDPARTY_DIR as string));
