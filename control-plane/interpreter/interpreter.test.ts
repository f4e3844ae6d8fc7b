// The interpreter part without an apiserver: what a restarted control plane knows before any
// controller runs, and what it tells agents.
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { describe, it, mock } from "node:test";
import type { ResourceInterpreterCustomization } from "../../shared/api/customization.ts";
import { RESOURCES } from "../../shared/api/resources.ts";
import { EMPTY_AGENT_SET, encodeAgentSet } from "../../shared/interpreter/agent-customizations.ts";
import { InterpreterRegistry } from "../../shared/interpreter/registry.ts";
import { silentLogger } from "../../shared/logger.ts";
import type { ControlPlaneContext, ControlPlaneEvents } from "../context.ts";
import { FakeInformer } from "../caches/fake-informer.fixtures.ts";
import { AGENT_SET_QUIET_MS, startInterpreter } from "./index.ts";

const gizmo = (script: string): ResourceInterpreterCustomization => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceInterpreterCustomization",
  metadata: { name: "gizmo", resourceVersion: "1" },
  spec: {
    target: { apiVersion: "example.com/v1", kind: "Gizmo" },
    customizations: {
      replicaResource: { luaScript: "function GetReplicas(obj)\n  return obj.spec.fleet.count, nil\nend" },
      healthInterpretation: { luaScript: script },
    },
  },
});

function context(stored: ResourceInterpreterCustomization[]) {
  const customizations = new FakeInformer<ResourceInterpreterCustomization>(RESOURCES.resourceInterpreterCustomization);
  for (const c of stored) customizations.put(c);
  const events = new EventEmitter<ControlPlaneEvents>();
  const ctx = {
    log: silentLogger(),
    caches: { customizations },
    templates: { list: () => [] },
    events,
    interpreters: new InterpreterRegistry(),
    agentCustomizations: { set: EMPTY_AGENT_SET, message: encodeAgentSet(EMPTY_AGENT_SET) },
  } as unknown as ControlPlaneContext;
  return { ctx, customizations, events };
}

describe("startInterpreter", () => {
  it("fills the registry and the agents' set from the stored customizations before any controller runs (a restart schedules with them)", () => {
    const { ctx } = context([gizmo("function InterpretHealth(o) return true end")]);
    const part = startInterpreter(ctx);
    assert.equal(ctx.interpreters.for({ apiVersion: "example.com/v1", kind: "Gizmo" }), undefined, "nothing before the caches are synced");
    part.synced?.();
    const g = { apiVersion: "example.com/v1", kind: "Gizmo", metadata: { name: "g" }, spec: { fleet: { count: 6 } } };
    assert.equal(ctx.interpreters.for(g)?.getReplicas?.(g).replicas, 6);
    assert.equal(ctx.agentCustomizations.set.customizations.length, 1);
    assert.deepEqual(Object.keys(ctx.agentCustomizations.set.customizations[0]?.spec.customizations ?? {}), ["healthInterpretation"], "only what agents run");
    assert.equal(ctx.agentCustomizations.message.contentHash, ctx.agentCustomizations.set.hash);
    part.stop?.();
  });

  it("announces a burst of changes to agents once, after it settles", async () => {
    mock.timers.enable({ apis: ["setTimeout", "Date"] });
    try {
      const { ctx, customizations, events } = context([]);
      let announced = 0;
      events.on("agentCustomizationsChanged", () => announced++);
      const part = startInterpreter(ctx);
      part.synced?.();
      for (const c of part.controllers ?? []) c.start();
      for (let i = 0; i < 5; i++) {
        customizations.put({ ...gizmo(`function InterpretHealth(o) return ${i} > 0 end`), metadata: { name: "gizmo", resourceVersion: String(i + 2) } });
        // The controller's queue runs on promises: let it.
        for (let k = 0; k < 20; k++) await Promise.resolve();
        mock.timers.tick(100);
      }
      assert.equal(announced, 0, "not while the burst goes on");
      mock.timers.tick(AGENT_SET_QUIET_MS);
      assert.equal(announced, 1);
      assert.match(ctx.agentCustomizations.set.customizations[0]?.spec.customizations.healthInterpretation?.luaScript ?? "", /return 4 > 0/, "the latest set");
      for (const c of part.controllers ?? []) await c.stop();
      part.stop?.();
    } finally {
      mock.timers.reset();
    }
  });
});
