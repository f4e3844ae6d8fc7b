// bench:agent-rss --customizations N (issue 21): the agent's RSS holding one object of each of N
// CRD kinds, without and then with N ResourceInterpreterCustomizations whose Retain, ReflectStatus
// and InterpretHealth it runs on them, against the goal of +10 MiB.
import { RESOURCES } from "../../shared/api/resources.ts";
import { KubeRest, objectPath, type ResourceInfo } from "../../shared/kube-rest.ts";
import { startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { waitFor } from "../env/wait.ts";
import type { AgentOptions } from "./agent-options.ts";
import { printHeapSpaces, settledMemory } from "./agent-rss-measure.ts";
import { mib } from "./rss.ts";

const FIELD_MANAGER = "flotilla-bench";
const NS = "rss";
const CUSTOMIZATIONS_GOAL_MIB = 10;
const GROUP = "rss.flotilla.dev";

/** A CRD of kind K<i>, an object of it, and a customization of it with the three scripts agents run. */
function customizationKind(i: number): { crd: unknown; object: unknown; customization: unknown; kind: string } {
  const kind = `K${i}`;
  const plural = `k${i}s`;
  const openSchema = { type: "object", "x-kubernetes-preserve-unknown-fields": true };
  return {
    kind,
    crd: {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `${plural}.${GROUP}`, labels: { bench: "rss" } },
      spec: {
        group: GROUP,
        scope: "Namespaced",
        names: { plural, singular: `k${i}`, kind },
        versions: [{ name: "v1", served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: "object", properties: { spec: openSchema, status: openSchema } } } }],
      },
    },
    object: { apiVersion: `${GROUP}/v1`, kind, metadata: { name: "one", namespace: NS }, spec: { size: i, paused: false } },
    customization: {
      apiVersion: "flotilla.dev/v1alpha1",
      kind: "ResourceInterpreterCustomization",
      metadata: { name: plural },
      spec: {
        target: { apiVersion: `${GROUP}/v1`, kind },
        customizations: {
          retention: { luaScript: `function Retain(desiredObj, observedObj)\n  if observedObj.spec.paused ~= nil then\n    desiredObj.spec.paused = observedObj.spec.paused\n  end\n  return desiredObj\nend` },
          statusReflection: { luaScript: `function ReflectStatus(observedObj)\n  local status = {}\n  if observedObj.status == nil then\n    return status\n  end\n  status.phase = observedObj.status.phase\n  status.ready = observedObj.status.ready\n  return status\nend` },
          healthInterpretation: { luaScript: `function InterpretHealth(observedObj)\n  if observedObj.status == nil then\n    return false\n  end\n  return observedObj.status.phase == "Running" and observedObj.status.ready == ${i}\nend` },
        },
      },
    },
  };
}

/** The agent's RSS holding one object of each of N kinds, without and then with N customizations of them. */
export async function measureCustomizations(n: number, o: { agents: AgentOptions; nodeOptions: string; settleMs: number }): Promise<void> {
  const fleet = await startFleet({ members: 1, nodesPerMember: 2 });
  let flotilla: Flotilla | undefined;
  let rest: KubeRest | undefined;
  try {
    flotilla = await startFlotilla(fleet, { logLevel: "warn", heartbeatInterval: "10s", ...o.agents });
    const f = flotilla;
    const member = fleet.members[0]?.name ?? "member1";
    const pid = f.agents.get(member)?.process.pid ?? 0;
    console.log(`fleet: control + 1 member; agent pid ${pid}; ${n} CRD kinds, one object of each${o.nodeOptions ? `; node ${o.nodeOptions}` : ""}`);
    rest = new KubeRest(fleet.control.kubeConfig(), { maxSockets: 20 });
    const control = rest;
    const kinds = Array.from({ length: n }, (_, i) => customizationKind(i));
    const crds: ResourceInfo = { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", plural: "customresourcedefinitions", namespaced: false };
    await control.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } } });
    for (const k of kinds) await control.apply(objectPath(crds, undefined, (k.crd as { metadata: { name: string } }).metadata.name), k.crd, FIELD_MANAGER);
    await control.apply(
      objectPath(RESOURCES.clusterPropagationPolicy, undefined, "rss-crds"),
      { apiVersion: "flotilla.dev/v1alpha1", kind: "ClusterPropagationPolicy", metadata: { name: "rss-crds" }, spec: { resourceSelectors: [{ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", labelSelector: { matchLabels: { bench: "rss" } } }] } },
      FIELD_MANAGER,
    );
    await control.apply(
      objectPath(RESOURCES.propagationPolicy, NS, "rss"),
      { apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "rss", namespace: NS }, spec: { resourceSelectors: kinds.map((k) => ({ apiVersion: `${GROUP}/v1`, kind: k.kind })) } },
      FIELD_MANAGER,
    );
    // The objects, once the control cluster serves their kinds.
    for (const k of kinds) {
      const path = objectPath({ apiVersion: `${GROUP}/v1`, kind: k.kind, plural: `k${k.kind.slice(1)}s`, namespaced: true }, NS, "one");
      await waitFor(async () => control.apply(path, k.object, FIELD_MANAGER).then(() => true, () => false), { what: `${k.kind} served`, timeoutMs: 60_000, intervalMs: 250 });
    }
    const settled = async (what: string, check: (m: Record<string, number>) => boolean) =>
      waitFor(
        async () => {
          if (!f.controlPlane.running) await f.startControlPlane();
          return check(await f.agentMetrics(member));
        },
        { what, timeoutMs: 900_000, intervalMs: 1000 },
      );
    await settled(`the agent to hold ${2 * n} Works`, (m) => m.flotilla_agent_works === 2 * n && m.flotilla_agent_work_queue_depth === 0);
    const without = (await settledMemory(pid, o.settleMs)).rss;
    console.log(`agent RSS with ${n} kinds' objects, no customizations: ${mib(without)}`);
    printHeapSpaces("without", await f.agentMetrics(member));
    // One customization first: what loading the Lua runtime costs; then the rest: what each adds.
    const applyCustomizations = async (from: number, to: number) => {
      for (const k of kinds.slice(from, to)) {
        const c = k.customization as { metadata: { name: string } };
        await control.apply(objectPath(RESOURCES.resourceInterpreterCustomization, undefined, c.metadata.name), c, FIELD_MANAGER);
      }
      await settled(`the agent to hold ${to} customizations`, (m) => m.flotilla_agent_customizations === to && m.flotilla_agent_work_queue_depth === 0);
    };
    await applyCustomizations(0, 1);
    const one = (await settledMemory(pid, o.settleMs)).rss;
    console.log(`agent RSS with 1 customization run on its kind's object (the Lua runtime loaded): ${mib(one)}; +${mib(one - without)}`);
    await applyCustomizations(1, n);
    const m = await f.agentMetrics(member);
    const withThem = (await settledMemory(pid, o.settleMs)).rss;
    console.log(
      `agent RSS with ${n} customizations run on them: ${mib(withThem)}; +${mib(withThem - without)} over none (goal +${CUSTOMIZATIONS_GOAL_MIB} MiB), ratio ${(withThem / without).toFixed(2)}; ` +
        `+${mib(withThem - one)} over one (${((withThem - one) / Math.max(1, n - 1) / 1024).toFixed(0)} KiB each); sets received ${m.flotilla_agent_customization_sets_received_total ?? 0}`,
    );
    printHeapSpaces("with", await f.agentMetrics(member));
  } finally {
    rest?.close();
    await flotilla?.stop();
    await fleet.stop();
  }
}
