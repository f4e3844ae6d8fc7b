// The part of the ResourceInterpreterCustomizations that runs in the agent (issue 21: Retain,
// ReflectStatus and InterpretHealth act on the member's objects), as one set with one hash. The
// hub sends the set to an agent whose Hello states another hash, and again when it changes; the
// agent keeps it (with its hash) across restarts, so an unchanged set is never sent twice. Pure:
// the set from the stored customizations, and its wire form both ways, checked as any peer's input.
import type { CustomizationRules, ResourceInterpreterCustomization } from "../api/customization.ts";
import { contentHash } from "../content-hash.ts";

/** The rules that run in the agent. */
export const AGENT_RULES = ["retention", "statusReflection", "healthInterpretation"] as const satisfies readonly (keyof CustomizationRules)[];

/** The agent's customizations and their hash ("" for none). */
export interface AgentCustomizationSet {
  hash: string;
  /** In name order; each holds its name, its target and only its agent rules with a script. */
  customizations: ResourceInterpreterCustomization[];
}

export const EMPTY_AGENT_SET: AgentCustomizationSet = { hash: "", customizations: [] };

/** Bounds on a set an agent accepts (the webhook bounds each script; these bound the whole). */
export const AGENT_SET_BOUNDS = { customizations: 1000, bytes: 8 * 1024 * 1024 } as const;

/** The agent's set from the stored customizations: those being deleted, without a target or without an agent rule are left out. */
export function agentCustomizationSet(stored: readonly ResourceInterpreterCustomization[]): AgentCustomizationSet {
  const customizations: ResourceInterpreterCustomization[] = [];
  for (const c of stored) {
    if (c.metadata.deletionTimestamp !== undefined || c.spec?.target === undefined) continue;
    const rules: CustomizationRules = {};
    for (const rule of AGENT_RULES) {
      const script = c.spec.customizations?.[rule]?.luaScript;
      if (typeof script === "string" && script.trim() !== "") rules[rule] = { luaScript: script };
    }
    if (Object.keys(rules).length === 0) continue;
    customizations.push({
      apiVersion: c.apiVersion,
      kind: c.kind,
      metadata: { name: c.metadata.name ?? "" },
      spec: { target: { apiVersion: c.spec.target.apiVersion, kind: c.spec.target.kind }, customizations: rules },
    });
  }
  customizations.sort((a, b) => ((a.metadata.name ?? "") < (b.metadata.name ?? "") ? -1 : (a.metadata.name ?? "") > (b.metadata.name ?? "") ? 1 : 0));
  return { hash: customizations.length === 0 ? "" : contentHash(customizations), customizations };
}

/** The set as the InterpreterCustomizations message carries it. */
export function encodeAgentSet(set: AgentCustomizationSet): { contentHash: string; customizations: Buffer[] } {
  return { contentHash: set.hash, customizations: set.customizations.map((c) => Buffer.from(JSON.stringify(c))) };
}

/**
 * The set an InterpreterCustomizations message carries, or why it is refused (the agent then keeps
 * the set it has). Every entry must be a customization with a name, a target and only agent rules
 * whose scripts are strings; the hash must be the set's own.
 */
export function decodeAgentSet(msg: { contentHash: string; customizations: readonly Uint8Array[] }): { ok: true; set: AgentCustomizationSet } | { ok: false; reason: string } {
  if (msg.customizations.length > AGENT_SET_BOUNDS.customizations) return { ok: false, reason: `${msg.customizations.length} customizations (at most ${AGENT_SET_BOUNDS.customizations})` };
  const bytes = msg.customizations.reduce((n, b) => n + b.byteLength, 0);
  if (bytes > AGENT_SET_BOUNDS.bytes) return { ok: false, reason: `${bytes} bytes of customizations (at most ${AGENT_SET_BOUNDS.bytes})` };
  const customizations: ResourceInterpreterCustomization[] = [];
  for (const [i, b] of msg.customizations.entries()) {
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(b).toString("utf8"));
    } catch {
      return { ok: false, reason: `customization ${i} is not JSON` };
    }
    const bad = malformed(value);
    if (bad !== undefined) return { ok: false, reason: `customization ${i}: ${bad}` };
    customizations.push(value as ResourceInterpreterCustomization);
  }
  const set = agentCustomizationSet(customizations);
  if (set.customizations.length !== customizations.length) return { ok: false, reason: "a customization has no agent rule" };
  if (set.hash !== msg.contentHash) return { ok: false, reason: `the set's hash is ${JSON.stringify(set.hash)}, not the ${JSON.stringify(msg.contentHash)} it was sent with` };
  return { ok: true, set };
}

function malformed(value: unknown): string | undefined {
  if (!isRecord(value)) return "not an object";
  const meta = value.metadata;
  if (!isRecord(meta) || typeof meta.name !== "string" || meta.name === "") return "metadata.name is missing";
  const spec = value.spec;
  if (!isRecord(spec) || !isRecord(spec.target) || typeof spec.target.apiVersion !== "string" || typeof spec.target.kind !== "string") return "spec.target is missing";
  if (!isRecord(spec.customizations)) return "spec.customizations is missing";
  for (const [rule, r] of Object.entries(spec.customizations)) {
    if (!(AGENT_RULES as readonly string[]).includes(rule)) return `spec.customizations.${rule} does not run in the agent`;
    if (!isRecord(r) || typeof r.luaScript !== "string") return `spec.customizations.${rule}.luaScript is not a string`;
  }
  return undefined;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
