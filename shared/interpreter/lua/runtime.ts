// The Lua runtime for ResourceInterpreterCustomizations (issue 21): runs Karmada's script
// functions (Retain, GetReplicas, ReviseReplica, ReflectStatus, AggregateStatus,
// InterpretHealth, GetDependencies, GetComponents) synchronously in fengari, sandboxed, with a
// time and a memory limit per call, and turns results into what Karmada's luavm returns.
//
// One VM serves every call: calls are synchronous and JavaScript runs one at a time, so a pool
// would only add memory (a VM with its libraries is ~0.2 MiB). It runs in a worker thread of its
// own (lua-thread.ts) with a hard deadline, so no script holds the caller longer than the time
// limit and a grace, even inside a built-in function; `thread: false` runs it on the calling
// thread (lua-calls.ts), with only the VM's own checks. A script is compiled once per content hash
// (sha256) and kept, up to `maxScripts`, least recently used first out. Each call runs the
// compiled chunk in a fresh environment, as Karmada's DoString per call does, so one call's
// globals never reach the next. A call that hits its time or memory limit, or breaks the VM,
// throws an InterpreterError and the VM is replaced; other calls go on.
import type { Logger } from "pino";
import type { KubeObject } from "../../api/types.ts";
import { InterpreterError, type InterpreterOperation, type KindInterpreter, type ReplicaRequirements, type StatusItem } from "../interpreter.ts";
import type { JsonValue } from "./convert.ts";
import { fixEmptyTables } from "./empty-tables.ts";
import { InThreadLua, type LuaCalls } from "./lua-calls.ts";
import { ThreadedLua } from "./lua-thread.ts";
import { aggregatedStatusItem, componentList, dependencies, replicaRequirements } from "./results.ts";
import { LuaScriptError } from "./vm.ts";

export { LuaScriptError };

export interface LuaRuntimeOptions {
  /** Per call; Karmada's is 1 s. */
  timeoutMs?: number;
  /** How much the JS heap may grow during one call (sampled every 1000 Lua instructions). */
  memoryBytes?: number;
  /** Compiled scripts kept. */
  maxScripts?: number;
  /** Where a script's print() goes (debug level); dropped when absent. */
  logger?: Logger;
  /**
   * Run the VM in a worker thread with a hard deadline (default true); false runs it on the
   * calling thread, where a built-in function can outlast the time limit (benchmarks compare the two).
   */
  thread?: boolean;
}

/** A customization's script, as in Karmada's ResourceInterpreterCustomization. */
export interface LuaScript {
  luaScript: string;
}

/** spec.customizations of a ResourceInterpreterCustomization. */
export interface LuaCustomizations {
  retention?: LuaScript;
  replicaResource?: LuaScript;
  replicaRevision?: LuaScript;
  statusReflection?: LuaScript;
  statusAggregation?: LuaScript;
  healthInterpretation?: LuaScript;
  dependencyInterpretation?: LuaScript;
  componentResource?: LuaScript;
}

/** Each customization field: the function its script must define and the operation it answers. */
export const SCRIPT_FUNCTIONS: Record<keyof LuaCustomizations, { fn: string; operation: InterpreterOperation }> = {
  retention: { fn: "Retain", operation: "Retain" },
  replicaResource: { fn: "GetReplicas", operation: "InterpretReplica" },
  replicaRevision: { fn: "ReviseReplica", operation: "ReviseReplica" },
  statusReflection: { fn: "ReflectStatus", operation: "InterpretStatus" },
  statusAggregation: { fn: "AggregateStatus", operation: "AggregateStatus" },
  healthInterpretation: { fn: "InterpretHealth", operation: "InterpretHealth" },
  dependencyInterpretation: { fn: "GetDependencies", operation: "InterpretDependency" },
  componentResource: { fn: "GetComponents", operation: "InterpretComponent" },
};

function luaTypeName(v: JsonValue | undefined): string {
  if (v === undefined || v === null) return "nil";
  if (Array.isArray(v) || typeof v === "object") return "table";
  return typeof v;
}

/** Runs customization scripts; see the file comment. */
export class LuaInterpreterRuntime {
  private readonly calls: LuaCalls & { close?(): void };

  constructor(opts: LuaRuntimeOptions = {}) {
    const options = { timeoutMs: opts.timeoutMs ?? 1000, memoryBytes: opts.memoryBytes ?? 32 * 2 ** 20, maxScripts: opts.maxScripts ?? 1000, logger: opts.logger };
    this.calls = opts.thread === false ? new InThreadLua(options) : new ThreadedLua(options);
  }

  /** Checks a script as an apply would: it compiles, loads, and defines `functionName`. Throws LuaScriptError with the Lua message and line. */
  check(script: string, functionName: string): void {
    try {
      this.calls.check(script, functionName);
    } catch (e) {
      if (e instanceof LuaScriptError) throw e;
      throw new LuaScriptError(e instanceof Error ? e.message : String(e));
    }
  }

  /** Ends the runtime's Lua thread, if it has one (a later call starts another); it never keeps a process alive either way. */
  close(): void {
    this.calls.close?.();
  }

  /** As check, but the Lua message (with its line) is returned, undefined when the script is fine: the apply-time check's ScriptChecker. */
  scriptError(script: string, functionName: string): string | undefined {
    try {
      this.check(script, functionName);
      return undefined;
    } catch (err) {
      if (err instanceof LuaScriptError) return err.message;
      throw err;
    }
  }

  /** The KindInterpreter that runs `customizations`' scripts (only the operations they define). */
  interpreter(customizations: LuaCustomizations): KindInterpreter {
    const c = customizations;
    const out: KindInterpreter = {};
    if (c.retention) {
      const s = c.retention.luaScript;
      out.retain = (desired, observed) => this.object("Retain", s, "Retain", [desired, observed], [desired, observed]);
    }
    if (c.replicaResource) {
      const s = c.replicaResource.luaScript;
      out.getReplicas = (obj) =>
        this.run("InterpretReplica", s, "GetReplicas", [obj], 2, ([replica, requires]) => {
          if (typeof replica !== "number") throw new Error(`result type ${luaTypeName(replica)} is not number`);
          if (requires !== null && (typeof requires !== "object" || requires === undefined)) throw new Error(`expect the returned requires type is table but got ${luaTypeName(requires)}`);
          const result: { replicas: number; requires?: ReplicaRequirements } = { replicas: Math.trunc(replica) | 0 };
          if (requires !== null) result.requires = replicaRequirements(fixEmptyTables(requires as JsonValue, "object", []));
          return result;
        });
    }
    if (c.replicaRevision) {
      const s = c.replicaRevision.luaScript;
      out.reviseReplica = (obj, replicas) => this.object("ReviseReplica", s, "ReviseReplica", [obj, replicas], [obj]);
    }
    if (c.statusReflection) {
      const s = c.statusReflection.luaScript;
      out.reflectStatus = (observed) =>
        this.run("InterpretStatus", s, "ReflectStatus", [observed], 1, ([status]) => {
          if (status === null || typeof status !== "object") throw new Error(`expect the returned replica type is table but got ${luaTypeName(status)}`);
          return fixEmptyTables(status as JsonValue, "object", []) as Record<string, unknown>;
        });
    }
    if (c.statusAggregation) {
      const s = c.statusAggregation.luaScript;
      // Karmada's status controller passes a nil list when the template is in no cluster, and
      // scripts test `statusItems == nil`: no items is nil here too.
      out.aggregateStatus = (obj, items) => this.aggregateStatus(s, obj, items.length > 0 ? items : null);
    }
    if (c.healthInterpretation) {
      const s = c.healthInterpretation.luaScript;
      out.interpretHealth = (observed) =>
        this.run("InterpretHealth", s, "InterpretHealth", [observed], 1, ([healthy]) => {
          if (typeof healthy !== "boolean") throw new Error(`result type ${luaTypeName(healthy)} is not bool`);
          return healthy;
        });
    }
    if (c.dependencyInterpretation) {
      const s = c.dependencyInterpretation.luaScript;
      out.getDependencies = (obj) =>
        this.run("InterpretDependency", s, "GetDependencies", [obj], 1, ([deps]) => {
          if (deps === null || typeof deps !== "object") throw new Error(`expect the returned requires type is table but got ${luaTypeName(deps)}`);
          return dependencies(fixEmptyTables(deps as JsonValue, "list", []));
        });
    }
    if (c.componentResource) {
      const s = c.componentResource.luaScript;
      out.getComponents = (obj) =>
        this.run("InterpretComponent", s, "GetComponents", [obj], 1, ([components]) => {
          if (components === null) return [];
          if (typeof components !== "object") throw new Error(`expected result type 'table' or 'nil' from GetComponents, but got '${luaTypeName(components)}'`);
          return componentList(fixEmptyTables(components as JsonValue, "list", []));
        });
    }
    return out;
  }

  /**
   * AggregateStatus with the items as given: null is nil and [] an empty table, as karmadactl's
   * --status-file gives them (KindInterpreter.aggregateStatus passes null for no items).
   */
  aggregateStatus(script: string, obj: KubeObject, items: readonly StatusItem[] | null): KubeObject {
    return this.object("AggregateStatus", script, "AggregateStatus", [obj, items === null ? null : items.map(aggregatedStatusItem)], []);
  }

  /** A call whose result is a whole object (Retain, ReviseReplica, AggregateStatus): it must keep `kind`. */
  private object(operation: InterpreterOperation, script: string, fn: string, args: unknown[], references: unknown[]): KubeObject {
    return this.run(operation, script, fn, args, 1, ([result]) => {
      if (result === null || typeof result !== "object") throw new Error(`expect the returned requires type is table but got ${luaTypeName(result)}`);
      const fixed = fixEmptyTables(result as JsonValue, "object", references);
      if (Array.isArray(fixed) || typeof fixed !== "object" || fixed === null || typeof fixed.kind !== "string" || fixed.kind === "") {
        throw new Error("Object 'Kind' is missing in the result");
      }
      return fixed as unknown as KubeObject;
    });
  }

  /** Calls `fn`, reads `nret` results as JSON, and maps them; any failure becomes an InterpreterError for `operation`. */
  run<T>(operation: InterpreterOperation, script: string, fn: string, args: readonly unknown[], nret: number, map: (results: (JsonValue | undefined)[]) => T): T {
    try {
      return map(this.calls.call(script, fn, args, nret));
    } catch (e) {
      if (e instanceof InterpreterError) throw e;
      throw new InterpreterError(operation, e instanceof Error ? e.message : String(e));
    }
  }
}
