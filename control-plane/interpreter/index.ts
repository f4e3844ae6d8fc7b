// The interpreter part (issue 21): the stored ResourceInterpreterCustomizations, compiled by the
// Lua runtime, become the registry's customizations (ctx.interpreters) that scheduling, rendering
// and the template status ask. Every replica keeps its own, from the informer; the registry is
// filled before any controller starts, so no template is scheduled without its customization. A
// change requeues the templates of the kinds it touches. The operations that run in agents
// (Retain, ReflectStatus, InterpretHealth) are kept as the set the hub sends them.
import type { ResourceInterpreterCustomization } from "../../shared/api/customization.ts";
import { Controller } from "../../shared/controller.ts";
import { LuaInterpreterRuntime } from "../../shared/interpreter/lua/runtime.ts";
import type { ScriptChecker } from "../../shared/interpreter/customization-check.ts";
import { templateKey } from "../../shared/work-key.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import { changedKinds, customizationDigests, interpretersByKind } from "../../shared/interpreter/customization-set.ts";
import { agentCustomizationSet, encodeAgentSet } from "../../shared/interpreter/agent-customizations.ts";
import { SettleTimer } from "../../shared/settle-timer.ts";

/** How long the customizations must stay unchanged before agents are sent them, and the longest a change waits. */
export const AGENT_SET_QUIET_MS = 1000;
export const AGENT_SET_MAX_WAIT_MS = 5000;

export function startInterpreter(ctx: ControlPlaneContext): Part & { checkScript: ScriptChecker } {
  const log = ctx.log.child({ component: "interpreter" });
  const runtime = new LuaInterpreterRuntime({ logger: log });
  const informer = ctx.caches.customizations;
  let digests = new Map<string, string>();
  // A burst of customization changes (`kubectl apply -f dir/`) reaches agents as one set: every set
  // is the whole set, and each costs every agent a rebuild. A stream opened meanwhile gets the latest.
  const announce = new SettleTimer({ quietMs: AGENT_SET_QUIET_MS, maxWaitMs: AGENT_SET_MAX_WAIT_MS, fire: () => ctx.events.emit("agentCustomizationsChanged") });

  const refresh = (): string[] => {
    const stored = informer.list() as ResourceInterpreterCustomization[];
    // What agents run travels to them by hash (the hub sends a set only to agents holding another).
    const agentSet = agentCustomizationSet(stored);
    if (agentSet.hash !== ctx.agentCustomizations.set.hash) {
      ctx.agentCustomizations.set = agentSet;
      ctx.agentCustomizations.message = encodeAgentSet(agentSet);
      announce.poke();
    }
    const next = customizationDigests(stored);
    const changed = changedKinds(digests, next);
    if (changed.length === 0) return [];
    ctx.interpreters.setCustomizations(interpretersByKind(stored, (rules) => runtime.interpreter(rules)));
    digests = next;
    log.info({ kinds: changed }, "resource interpreter customizations changed");
    return changed;
  };

  const controller = new Controller({
    name: "interpreter-customizations",
    workers: 1,
    log,
    reconcile: async () => {
      for (const key of refresh()) {
        const slash = key.lastIndexOf("/");
        const kind = { apiVersion: key.slice(0, slash), kind: key.slice(slash + 1) };
        for (const t of ctx.templates.list(kind)) ctx.events.emit("templateChanged", templateKey(t));
      }
      return undefined;
    },
  });
  informer.on({ add: () => controller.enqueue("all"), update: () => controller.enqueue("all"), delete: () => controller.enqueue("all") });

  // The webhook's check: compiles the script in the same runtime, never runs its function.
  const checkScript: ScriptChecker = (script, functionName) => runtime.scriptError(script, functionName);

  return {
    synced: () => void refresh(),
    controllers: [controller],
    checkScript,
    stop: () => announce.stop(),
  };
}
