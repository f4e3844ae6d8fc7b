// What the dashboard shows from inside a member (issue 41): a workload's pods and recent events,
// one pod's containers, and the member API paths that read them. The reads themselves go through
// the member API as the signed-in user (member-reads.ts); this file only decides. Pure.
import type { CoreEvent } from "../../shared/api/core-event.ts";
import type { LabelSelector } from "../../shared/api/types.ts";

/** A Cluster's name and an object's name: a DNS subdomain. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
/** A namespace's and a container's name: a DNS label. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const KIND = /^[A-Za-z][A-Za-z0-9]{0,62}$/;
const API_VERSION = /^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?\/)?v[0-9a-z]{1,20}$/;

/** Log lines a pod page starts with before it follows. */
export const LOG_TAIL_LINES = 200;
/** Events listed per workload and cluster, newest first. */
export const EVENTS_SHOWN = 20;
/** Pods and events read from one member per request, at most. */
export const LIST_LIMIT = 500;

type Field = "cluster" | "namespace" | "name" | "pod" | "container" | "kind" | "apiVersion";
const FIELDS: Record<Field, { pattern: RegExp; what: string }> = {
  cluster: { pattern: DNS_SUBDOMAIN, what: "a cluster name (a DNS subdomain)" },
  namespace: { pattern: DNS_LABEL, what: "a namespace (a DNS label)" },
  name: { pattern: DNS_SUBDOMAIN, what: "an object name (a DNS subdomain)" },
  pod: { pattern: DNS_SUBDOMAIN, what: "a pod name (a DNS subdomain)" },
  container: { pattern: DNS_LABEL, what: "a container name (a DNS label)" },
  kind: { pattern: KIND, what: "a kind (letters and digits)" },
  apiVersion: { pattern: API_VERSION, what: "an apiVersion (group/version or version)" },
};

/** The named fields of a query, each checked; `optional` ones may be absent or empty. */
export function memberQuery<R extends Field, O extends Field = never>(q: URLSearchParams, required: readonly R[], optional: readonly O[] = []): ({ [K in R]: string } & { [K in O]?: string }) | { error: string } {
  const out: Record<string, string> = {};
  for (const f of [...required, ...optional]) {
    const v = q.get(f) ?? "";
    if (v === "" && (optional as readonly Field[]).includes(f)) continue;
    if (!FIELDS[f].pattern.test(v)) return { error: `${f}: ${JSON.stringify(v.slice(0, 64))} is not ${FIELDS[f].what}` };
    out[f] = v;
  }
  return out as { [K in R]: string } & { [K in O]?: string };
}

/** The kinds whose spec.selector names their pods, and where the member serves them. */
const WORKLOADS: Record<string, string> = {
  "apps/v1 Deployment": "/apis/apps/v1/namespaces/{ns}/deployments/{name}",
  "apps/v1 StatefulSet": "/apis/apps/v1/namespaces/{ns}/statefulsets/{name}",
  "apps/v1 DaemonSet": "/apis/apps/v1/namespaces/{ns}/daemonsets/{name}",
  "apps/v1 ReplicaSet": "/apis/apps/v1/namespaces/{ns}/replicasets/{name}",
  "batch/v1 Job": "/apis/batch/v1/namespaces/{ns}/jobs/{name}",
};

/** The member API path of a workload with pods, or undefined for a kind that has none. */
export function workloadPath(ref: { apiVersion: string; kind: string; namespace: string; name: string }): string | undefined {
  return WORKLOADS[`${ref.apiVersion} ${ref.kind}`]?.replace("{ns}", ref.namespace).replace("{name}", ref.name);
}

/**
 * A label selector as the apiserver's labelSelector parameter, or undefined when it selects
 * nothing we should list: absent, empty (it would select every pod), or with an operator the
 * apiserver does not take.
 */
export function selectorQuery(s: LabelSelector | undefined): string | undefined {
  if (s === undefined) return undefined;
  const parts = Object.entries(s.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of s.matchExpressions ?? []) {
    const values = (e.values ?? []).join(",");
    if (e.operator === "In") parts.push(`${e.key} in (${values})`);
    else if (e.operator === "NotIn") parts.push(`${e.key} notin (${values})`);
    else if (e.operator === "Exists") parts.push(e.key);
    else if (e.operator === "DoesNotExist") parts.push(`!${e.key}`);
    else return undefined;
  }
  return parts.length === 0 ? undefined : parts.join(",");
}

/** The fields of a Pod the dashboard shows. */
export interface MemberPod {
  metadata: { name?: string; namespace?: string; creationTimestamp?: string; deletionTimestamp?: string; ownerReferences?: { kind: string; name: string }[] };
  spec?: { nodeName?: string; containers?: { name: string; image?: string }[]; initContainers?: { name: string }[] };
  status?: { phase?: string; reason?: string; containerStatuses?: ContainerStatus[]; initContainerStatuses?: ContainerStatus[] };
}

interface ContainerStatus {
  name: string;
  ready?: boolean;
  restartCount?: number;
  state?: { waiting?: { reason?: string }; running?: { startedAt?: string }; terminated?: { reason?: string; exitCode?: number } };
}

export interface PodRow {
  name: string;
  /** The pod's phase, or the word that says more (Terminating, a container's waiting reason). */
  phase: string;
  /** Ready containers of all: "1/2". */
  ready: string;
  restarts: number;
  node: string;
  /** When the pod was created (the page shows its age). */
  created: string;
}

export interface EventRow {
  type: string;
  reason: string;
  message: string;
  count: number;
  lastTime: string;
  /** What it is about: "Pod web-7d9f-abc". */
  object: string;
}

const containerWord = (c: ContainerStatus) => c.state?.waiting?.reason ?? c.state?.terminated?.reason;

export function podRow(p: MemberPod): PodRow {
  const statuses = p.status?.containerStatuses ?? [];
  const total = p.spec?.containers?.length ?? statuses.length;
  const waiting = statuses.map(containerWord).find((w) => w !== undefined && w !== "Completed");
  return {
    name: p.metadata.name ?? "",
    phase: p.metadata.deletionTimestamp !== undefined ? "Terminating" : (waiting ?? p.status?.reason ?? p.status?.phase ?? "Unknown"),
    ready: `${statuses.filter((c) => c.ready).length}/${total}`,
    restarts: statuses.reduce((n, c) => n + (c.restartCount ?? 0), 0),
    node: p.spec?.nodeName ?? "",
    created: p.metadata.creationTimestamp ?? "",
  };
}

export const podRows = (pods: readonly MemberPod[]): PodRow[] => pods.map(podRow).sort((a, b) => a.name.localeCompare(b.name));

const eventTime = (e: CoreEvent) => e.lastTimestamp ?? e.eventTime ?? e.metadata.creationTimestamp ?? "";

/** The newest `limit` events about any of `about` (kind and name), newest first. */
export function eventRows(events: readonly CoreEvent[], about: readonly { kind: string; name: string }[], limit = EVENTS_SHOWN): EventRow[] {
  const wanted = new Set(about.map((o) => `${o.kind}/${o.name}`));
  return events
    .filter((e) => wanted.has(`${e.involvedObject?.kind ?? ""}/${e.involvedObject?.name ?? ""}`))
    .map((e) => ({ type: e.type ?? "", reason: e.reason ?? "", message: e.message ?? "", count: e.count ?? 1, lastTime: eventTime(e), object: `${e.involvedObject?.kind ?? ""} ${e.involvedObject?.name ?? ""}` }))
    .sort((a, b) => (Date.parse(b.lastTime) || 0) - (Date.parse(a.lastTime) || 0) || a.object.localeCompare(b.object))
    .slice(0, limit);
}

/** The objects whose events belong to a workload: itself, its pods, and what owns its pods (a Deployment's ReplicaSets). */
export function eventSubjects(workload: { kind: string; name: string }, pods: readonly MemberPod[]): { kind: string; name: string }[] {
  const out = [workload];
  for (const p of pods) {
    out.push({ kind: "Pod", name: p.metadata.name ?? "" });
    for (const o of p.metadata.ownerReferences ?? []) out.push({ kind: o.kind, name: o.name });
  }
  return out;
}

export interface PodDetail extends PodRow {
  namespace: string;
  containers: { name: string; image: string; ready: boolean; restarts: number; state: string }[];
}

export function podDetail(p: MemberPod): PodDetail {
  const statuses = new Map((p.status?.containerStatuses ?? []).map((c) => [c.name, c]));
  return {
    ...podRow(p),
    namespace: p.metadata.namespace ?? "",
    containers: (p.spec?.containers ?? []).map((c) => {
      const s = statuses.get(c.name);
      const state = s === undefined ? "Unknown" : s.state?.running !== undefined ? "Running" : (containerWord(s) ?? (s.state?.waiting ? "Waiting" : s.state?.terminated ? "Terminated" : "Unknown"));
      return { name: c.name, image: c.image ?? "", ready: s?.ready ?? false, restarts: s?.restartCount ?? 0, state };
    }),
  };
}

export interface MemberWorkload {
  cluster: string;
  /** Why nothing could be read: the member API is off, the agent is not connected or did not answer. */
  problem?: string;
  pods: PodRow[];
  /** Why no pods are listed: a refusal, no workload, a kind without a selector. */
  podsProblem?: string;
  events: EventRow[];
  eventsProblem?: string;
  /** More than LIST_LIMIT pods or events in the member: only the first were read. */
  truncated: boolean;
}

export interface MemberPodView {
  cluster: string;
  problem?: string;
  pod?: PodDetail;
}

/** The member API path of a pod's log, following it from its last `tailLines` lines. */
export function logPath(namespace: string, pod: string, container: string | undefined, tailLines = LOG_TAIL_LINES): string {
  const q = new URLSearchParams({ follow: "true", tailLines: String(tailLines) });
  if (container !== undefined) q.set("container", container);
  return `/api/v1/namespaces/${namespace}/pods/${pod}/log?${q.toString()}`;
}

/** A member's answer that is not the object: the line the page shows instead, from the Status it sent. */
export function refusalLine(cluster: string, status: number, body: string): string {
  let message: string;
  try {
    message = (JSON.parse(body) as { message?: string }).message ?? "";
  } catch {
    message = body.slice(0, 200);
  }
  const what = status === 403 ? `${cluster} refused` : status === 404 ? `not found in ${cluster}` : `${cluster} did not answer (${status})`;
  return message === "" ? what : `${what}: ${message}`;
}
