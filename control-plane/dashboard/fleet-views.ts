// What the dashboard shows of the fleet (issue 24): the overview (clusters, templates by state,
// recent warnings), the templates list, and per cluster what runs there. Built from the caches
// every replica holds; pure.
import type { CoreEvent } from "../../shared/api/core-event.ts";
import { type AggregatedStatusItem, type Cluster, type Condition, LABELS, type ResourceBinding } from "../../shared/api/types.ts";

export interface ClusterRow {
  name: string;
  /** The Ready condition's status ("Unknown" when it has none). */
  ready: "True" | "False" | "Unknown";
  readyReason: string;
  readyMessage: string;
  provider: string;
  region: string;
  zone: string;
  nodes: { ready: number; total: number };
  /** Allocatable and allocated cpu, memory and pods, as the agent reports them. */
  capacity: Record<string, { allocatable: string; allocated: string }>;
  agentVersion: string;
  kubernetesVersion: string;
  lastHeartbeatTime: string;
  taints: string[];
}

/** A template's state as one word, from its binding. */
export type TemplateState = "Healthy" | "Progressing" | "Unhealthy" | "Failed" | "Unscheduled";

export const TEMPLATE_STATES: readonly TemplateState[] = ["Healthy", "Progressing", "Unhealthy", "Failed", "Unscheduled"];

export interface TemplateRow {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  binding: string;
  policy: string;
  state: TemplateState;
  /** The clusters it is placed on, with the word of each. */
  clusters: { name: string; state: string }[];
}

export interface WarningRow {
  time: string;
  namespace: string;
  object: string;
  reason: string;
  message: string;
  count: number;
}

/** A Warning Event as the dashboard's event cache keeps it. */
export type WarningEvent = CoreEvent;

export interface Overview {
  clusters: ClusterRow[];
  templates: { total: number; byState: Record<TemplateState, number> };
  warnings: WarningRow[];
}

export interface ClusterWorkloads {
  cluster: ClusterRow;
  /** What runs there: each template placed on it, with its entry's word. */
  objects: { apiVersion: string; kind: string; namespace: string; name: string; replicas?: number; state: string; applied: boolean; health: string; reason: string; message: string }[];
}

const RECENT_WARNINGS = 20;
const CAPACITY = ["cpu", "memory", "pods"];

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const cond = (conditions: Condition[] | undefined, type: string) => conditions?.find((c) => c.type === type);

export function clusterRow(c: Cluster): ClusterRow {
  const ready = cond(c.status?.conditions, "Ready");
  const summary = c.status?.resourceSummary;
  return {
    name: c.metadata.name ?? "",
    ready: ready?.status === "True" ? "True" : ready?.status === "False" ? "False" : "Unknown",
    readyReason: ready?.reason ?? "",
    readyMessage: ready?.message ?? "",
    provider: c.spec.provider ?? "",
    region: c.spec.region ?? "",
    zone: c.spec.zone ?? "",
    nodes: { ready: c.status?.nodeSummary?.readyNum ?? 0, total: c.status?.nodeSummary?.totalNum ?? 0 },
    capacity: Object.fromEntries(CAPACITY.map((r) => [r, { allocatable: summary?.allocatable?.[r] ?? "", allocated: summary?.allocated?.[r] ?? "" }])),
    agentVersion: c.status?.agentVersion ?? "",
    kubernetesVersion: c.status?.kubernetesVersion ?? "",
    lastHeartbeatTime: c.status?.lastHeartbeatTime ?? "",
    taints: (c.spec.taints ?? []).map((t) => `${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`),
  };
}

/** One cluster entry's word: NotReady when its cluster is not Ready, else what the agent reported. */
export function entryState(item: AggregatedStatusItem | undefined, clusterReady: boolean): string {
  if (!clusterReady) return "NotReady";
  if (item === undefined) return "Pending";
  if (item.reason) return item.reason;
  if (!item.applied) return "Pending";
  return item.health ?? "Unknown";
}

/** The template's word from its binding's conditions and entries. */
export function templateState(b: ResourceBinding, clusterReady: (name: string) => boolean): TemplateState {
  if (cond(b.status?.conditions, "Scheduled")?.status !== "True") return "Unscheduled";
  const items = new Map((b.status?.aggregatedStatus ?? []).map((i) => [i.clusterName, i]));
  const words = b.spec.clusters.map((c) => entryState(items.get(c.name), clusterReady(c.name)));
  if (words.some((w) => !["Healthy", "Unhealthy", "NotReady", "Progressing", "Pending", "Unknown"].includes(w))) return "Failed";
  // A member object not running well, or one whose cluster is unreachable: not a failed apply.
  if (words.includes("Unhealthy") || words.includes("NotReady")) return "Unhealthy";
  if (words.some((w) => w !== "Healthy")) return "Progressing";
  return "Healthy";
}

export const policyOf = (b: ResourceBinding): string => {
  const name = b.metadata.labels?.[LABELS.policyName];
  if (name === undefined) return "";
  const ns = b.metadata.labels?.[LABELS.policyNamespace];
  return ns ? `PropagationPolicy ${ns}/${name}` : `ClusterPropagationPolicy ${name}`;
};

export function templateRows(bindings: readonly ResourceBinding[], clusters: readonly Cluster[]): TemplateRow[] {
  const ready = readiness(clusters);
  return bindings
    .map((b) => {
      const r = b.spec.resource;
      const items = new Map((b.status?.aggregatedStatus ?? []).map((i) => [i.clusterName, i]));
      return {
        apiVersion: r.apiVersion,
        kind: r.kind,
        namespace: r.namespace ?? "",
        name: r.name,
        binding: b.metadata.namespace ? `${b.metadata.namespace}/${b.metadata.name ?? ""}` : (b.metadata.name ?? ""),
        policy: policyOf(b),
        state: templateState(b, ready),
        clusters: b.spec.clusters.map((c) => ({ name: c.name, state: entryState(items.get(c.name), ready(c.name)) })).sort(byName),
      };
    })
    .sort((a, b) => {
      const ka = `${a.kind}/${a.namespace}/${a.name}`;
      const kb = `${b.kind}/${b.namespace}/${b.name}`;
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });
}

export function readiness(clusters: readonly Cluster[]): (name: string) => boolean {
  const ready = new Set(clusters.filter((c) => cond(c.status?.conditions, "Ready")?.status === "True").map((c) => c.metadata.name ?? ""));
  return (name) => ready.has(name);
}

export function warningRows(events: readonly WarningEvent[]): WarningRow[] {
  return events
    .filter((e) => e.type === "Warning")
    .map((e) => ({
      time: e.lastTimestamp ?? e.eventTime ?? "",
      namespace: e.metadata.namespace ?? "",
      object: `${e.involvedObject?.kind ?? ""} ${e.involvedObject?.namespace ? `${e.involvedObject.namespace}/` : ""}${e.involvedObject?.name ?? ""}`.trim(),
      reason: e.reason ?? "",
      message: e.message ?? "",
      count: e.count ?? 1,
    }))
    .sort((a, b) => (a.time > b.time ? -1 : a.time < b.time ? 1 : 0))
    .slice(0, RECENT_WARNINGS);
}

export function overview(input: { clusters: readonly Cluster[]; bindings: readonly ResourceBinding[]; events: readonly WarningEvent[] }): Overview {
  const rows = templateRows(input.bindings, input.clusters);
  const byState = Object.fromEntries(TEMPLATE_STATES.map((s) => [s, 0])) as Record<TemplateState, number>;
  for (const r of rows) byState[r.state]++;
  return { clusters: input.clusters.map(clusterRow).sort(byName), templates: { total: rows.length, byState }, warnings: warningRows(input.events) };
}

/** Per cluster, every template placed on it with its entry. */
export function clusterWorkloads(input: { clusters: readonly Cluster[]; bindings: readonly ResourceBinding[] }): ClusterWorkloads[] {
  const rows = input.clusters.map(clusterRow);
  const ready = new Map(rows.map((r) => [r.name, r.ready === "True"]));
  // One pass over the bindings, filing each target under its cluster (not one pass per cluster).
  const objectsOf = new Map<string, ClusterWorkloads["objects"]>(rows.map((r) => [r.name, []]));
  for (const b of input.bindings) {
    const items = new Map((b.status?.aggregatedStatus ?? []).map((i) => [i.clusterName, i]));
    const r = b.spec.resource;
    for (const target of b.spec.clusters) {
      const objects = objectsOf.get(target.name);
      if (objects === undefined) continue;
      const item = items.get(target.name);
      objects.push({
        apiVersion: r.apiVersion,
        kind: r.kind,
        namespace: r.namespace ?? "",
        name: r.name,
        ...(target.replicas === undefined ? {} : { replicas: target.replicas }),
        state: entryState(item, ready.get(target.name) === true),
        applied: item?.applied ?? false,
        health: item?.health ?? "Unknown",
        reason: item?.reason ?? "",
        message: item?.message ?? "",
      });
    }
  }
  const order = (o: { kind: string; namespace: string; name: string }) => `${o.kind}/${o.namespace}/${o.name}`;
  return rows
    .map((cluster) => ({ cluster, objects: (objectsOf.get(cluster.name) ?? []).sort((a, b) => (order(a) < order(b) ? -1 : 1)) }))
    .sort((a, b) => byName(a.cluster, b.cluster));
}
