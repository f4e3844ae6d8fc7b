import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { KubeObject } from "../shared/api/types.ts";
import type { Heartbeat } from "../shared/gen/flotilla/v1alpha1/agent.ts";
import { Informer } from "../shared/informer.ts";
import type { KubeRest } from "../shared/kube-rest.ts";
import { sumQuantities } from "../shared/quantity.ts";

interface Node extends KubeObject {
  status?: { allocatable?: Record<string, string>; conditions?: { type: string; status: string }[] };
}
interface Pod extends KubeObject {
  spec?: { nodeName?: string; containers?: { resources?: { requests?: Record<string, string> } }[] };
  status?: { phase?: string };
}

/** Builds heartbeats from informers on Nodes and Pods, /version and the served API groups. */
export class HeartbeatSource {
  private readonly nodes: Informer<Node>;
  private readonly pods: Informer<Pod>;
  private readonly rest: KubeRest;
  private readonly agentVersion: string;
  private version = "";
  private apis: string[] = [];
  private apisReadAt = 0;

  constructor(opts: { kc: KubeConfig; rest: KubeRest; log: Logger; agentVersion: string }) {
    this.rest = opts.rest;
    this.agentVersion = opts.agentVersion;
    // Every Pod of the member is cached: only what a heartbeat sums is kept of each (a whole Pod
    // is kilobytes; this is about a hundred bytes).
    this.nodes = new Informer<Node>({ kc: opts.kc, rest: opts.rest, resource: { apiVersion: "v1", kind: "Node", plural: "nodes", namespaced: false }, transform: nodeSummary, log: opts.log });
    this.pods = new Informer<Pod>({ kc: opts.kc, rest: opts.rest, resource: { apiVersion: "v1", kind: "Pod", plural: "pods", namespaced: true }, transform: podSummary, log: opts.log });
  }

  async start(): Promise<void> {
    await Promise.all([this.nodes.start(), this.pods.start()]);
  }

  stop(): void {
    this.nodes.stop();
    this.pods.stop();
  }

  async build(): Promise<Heartbeat> {
    if (this.version === "") {
      this.version = (await this.rest.get<{ gitVersion: string }>("/version")).gitVersion;
    }
    if (Date.now() - this.apisReadAt > 60_000) {
      const core = await this.rest.get<{ versions: string[] }>("/api");
      const groups = await this.rest.get<{ groups: { versions: { groupVersion: string }[] }[] }>("/apis");
      this.apis = [...core.versions, ...groups.groups.flatMap((g) => g.versions.map((v) => v.groupVersion))].sort();
      this.apisReadAt = Date.now();
    }
    const nodes = this.nodes.list();
    const ready = nodes.filter((n) => n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"));
    const active = this.pods.list().filter((p) => p.spec?.nodeName && p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed");
    const requests = active.flatMap((p) => (p.spec?.containers ?? []).map((c) => c.resources?.requests ?? {}));
    return {
      kubernetesVersion: this.version,
      agentVersion: this.agentVersion,
      nodeSummary: { total: nodes.length, ready: ready.length },
      resourceSummary: {
        allocatable: sumQuantities(ready.map((n) => n.status?.allocatable ?? {})),
        allocated: { ...sumQuantities(requests), pods: String(active.length) },
      },
      apiEnablements: this.apis,
    };
  }
}

/** What the cache needs of any object: its identity and the resourceVersion the watch resumes from. */
function identity(o: KubeObject): KubeObject {
  const { name, namespace, uid, resourceVersion } = o.metadata;
  return { apiVersion: o.apiVersion, kind: o.kind, metadata: { name, namespace, uid, resourceVersion } };
}

/** A Pod as the heartbeat reads it: node, phase and each container's requests. */
export function podSummary(p: Pod): Pod {
  const containers = (p.spec?.containers ?? []).map((c) => (c.resources?.requests === undefined ? {} : { resources: { requests: c.resources.requests } }));
  return { ...identity(p), spec: { nodeName: p.spec?.nodeName, containers }, status: { phase: p.status?.phase } };
}

/** A Node as the heartbeat reads it: allocatable and conditions' type and status. */
export function nodeSummary(n: Node): Node {
  return { ...identity(n), status: { allocatable: n.status?.allocatable, conditions: n.status?.conditions?.map(({ type, status }) => ({ type, status })) } };
}
