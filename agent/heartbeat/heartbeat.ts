import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { KubeObject } from "../../shared/api/types.ts";
import type { Heartbeat } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { Informer } from "../../shared/informer.ts";
import { KubeWatch } from "../../shared/kube-watch.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import { sumQuantities } from "../../shared/quantity.ts";
import type { SummaryPod } from "../metrics/metrics-summary.ts";

interface Node extends KubeObject {
  status?: { allocatable?: Record<string, string>; conditions?: { type: string; status: string }[] };
}
/** A Pod as cached: what heartbeats sum and what workload summaries read (SummaryPod). */
type Pod = KubeObject & SummaryPod & { spec?: { nodeName?: string } };

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
    // Every Pod of the member is cached: only what a heartbeat sums and a workload summary reads
    // is kept of each (a whole Pod is kilobytes; this is a few hundred bytes).
    this.nodes = new Informer<Node>({ kc: opts.kc, rest: opts.rest, watch: new KubeWatch(opts.kc), resource: { apiVersion: "v1", kind: "Node", plural: "nodes", namespaced: false }, transform: nodeSummary, log: opts.log });
    this.pods = new Informer<Pod>({ kc: opts.kc, rest: opts.rest, watch: new KubeWatch(opts.kc), resource: { apiVersion: "v1", kind: "Pod", plural: "pods", namespaced: true }, transform: podSummary, log: opts.log });
  }

  /** Whether the pod cache holds a successful list. */
  get podsSynced(): boolean {
    return this.pods.synced;
  }

  /** Calls back on every pod event (after the cache holds it); register before start(). */
  onPod(seen: (pod: Pod, deleted: boolean) => void): void {
    this.pods.on({ add: (p) => seen(p, false), update: (p) => seen(p, false), delete: (p) => seen(p, true) });
  }

  /** The cached Pods of a namespace (for the workload summaries). */
  podsIn(namespace: string): SummaryPod[] {
    return this.pods.list(namespace);
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

/** A container's name and requests. */
const requestsOf = (c: { name: string; resources?: { requests?: Record<string, string> } }) => (c.resources?.requests === undefined ? { name: c.name } : { name: c.name, resources: { requests: c.resources.requests } });

/**
 * A Pod as the heartbeat and the workload summaries read it: labels, deletion, node, phase, start
 * time, the Ready condition, each container's (and each restartable init container's) requests,
 * and pod-level requests.
 */
export function podSummary(p: Pod): Pod {
  const { labels, deletionTimestamp } = p.metadata;
  const ready = p.status?.conditions?.find((c) => c.type === "Ready");
  // Kept only while it says the pod could not be placed (the unschedulable replicas' report).
  const scheduled = p.status?.conditions?.find((c) => c.type === "PodScheduled" && c.status === "False");
  const conditions = [
    ...(ready === undefined ? [] : [{ type: "Ready", status: ready.status, lastTransitionTime: ready.lastTransitionTime }]),
    ...(scheduled === undefined ? [] : [{ type: "PodScheduled", status: scheduled.status, reason: scheduled.reason, lastTransitionTime: scheduled.lastTransitionTime }]),
  ];
  const sidecars = (p.spec?.initContainers ?? []).filter((c) => c.restartPolicy === "Always").map((c) => ({ ...requestsOf(c), restartPolicy: "Always" }));
  const podRequests = p.spec?.resources?.requests;
  return {
    ...identity(p),
    metadata: { ...identity(p).metadata, ...(labels === undefined ? {} : { labels }), ...(deletionTimestamp === undefined ? {} : { deletionTimestamp }) },
    spec: {
      nodeName: p.spec?.nodeName,
      containers: (p.spec?.containers ?? []).map(requestsOf),
      ...(sidecars.length > 0 ? { initContainers: sidecars } : {}),
      ...(podRequests === undefined ? {} : { resources: { requests: podRequests } }),
    },
    status: {
      phase: p.status?.phase,
      ...(p.status?.startTime === undefined ? {} : { startTime: p.status.startTime }),
      ...(conditions.length === 0 ? {} : { conditions }),
    },
  };
}

/** A Node as the heartbeat reads it: allocatable and conditions' type and status. */
export function nodeSummary(n: Node): Node {
  return { ...identity(n), status: { allocatable: n.status?.allocatable, conditions: n.status?.conditions?.map(({ type, status }) => ({ type, status })) } };
}
