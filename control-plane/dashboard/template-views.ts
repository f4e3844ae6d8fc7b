// One template's topology for the dashboard (issue 24): template → policy → binding → one box per
// cluster (its Work's revision, applied, health, replicas) → the member object; and the fleet's
// rollouts, DNS records and held deletions. Pure.
import type { IngressDNSRecord, ServiceDNSRecord } from "../../shared/api/dns.ts";
import type { Cluster, Condition, ResourceBinding } from "../../shared/api/types.ts";
import { heldDeletions } from "../../shared/held-deletions.ts";
import { entryState, policyOf, readiness, type TemplateState, templateState } from "./fleet-views.ts";

export interface ClusterBox {
  cluster: string;
  clusterReady: boolean;
  /** The box's word: NotReady, Healthy, Progressing, Unhealthy, Pending, or the entry's status word. */
  state: string;
  replicas?: number;
  /** The content hash of the Work this replica holds for the cluster (short), and the one the agent last reported applying. */
  workHash: string;
  observedHash: string;
  /** The rollout revision the cluster is told to run, under a progressive rollout. */
  rolloutRevision: string;
  applied: boolean;
  health: string;
  reason: string;
  message: string;
  /** The object in the member. */
  member: { kind: string; namespace: string; name: string };
}

export interface Topology {
  template: { apiVersion: string; kind: string; namespace: string; name: string; state: TemplateState };
  policy: string;
  binding: { name: string; conditions: { type: string; status: string; reason: string; message: string }[] };
  clusters: ClusterBox[];
}

export interface RolloutRow {
  kind: string;
  namespace: string;
  name: string;
  phase: string;
  revision: string;
  stableRevision: string;
  waitingFor: string;
  message: string;
  clusters: { name: string; phase: string; revision: string }[];
}

export interface DnsRow {
  kind: "ServiceDNSRecord" | "IngressDNSRecord";
  namespace: string;
  name: string;
  ready: string;
  reason: string;
  message: string;
  clusters: string[];
}

const short = (hash: string | undefined) => (hash ?? "").slice(0, 12);
const conditionRows = (conditions: Condition[] | undefined) => (conditions ?? []).map((c) => ({ type: c.type, status: c.status, reason: c.reason ?? "", message: c.message ?? "" }));

export function topology(input: { binding: ResourceBinding; clusters: readonly Cluster[]; workHash: (cluster: string) => string | undefined }): Topology {
  const b = input.binding;
  const r = b.spec.resource;
  const ready = readiness(input.clusters);
  const items = new Map((b.status?.aggregatedStatus ?? []).map((i) => [i.clusterName, i]));
  const told = new Map((b.status?.rollout?.clusters ?? []).map((c) => [c.name, c.revision]));
  // Entries of clusters no longer targeted (a removal in progress) are boxes too.
  const names = [...new Set([...b.spec.clusters.map((c) => c.name), ...items.keys()])].sort();
  return {
    template: { apiVersion: r.apiVersion, kind: r.kind, namespace: r.namespace ?? "", name: r.name, state: templateState(b, ready) },
    policy: policyOf(b),
    binding: { name: b.metadata.namespace ? `${b.metadata.namespace}/${b.metadata.name ?? ""}` : (b.metadata.name ?? ""), conditions: conditionRows(b.status?.conditions) },
    clusters: names.map((name) => {
      const item = items.get(name);
      const replicas = b.spec.clusters.find((c) => c.name === name)?.replicas;
      return {
        cluster: name,
        clusterReady: ready(name),
        state: entryState(item, ready(name)),
        ...(replicas === undefined ? {} : { replicas }),
        workHash: short(input.workHash(name)),
        observedHash: short(item?.observedHash),
        rolloutRevision: short(told.get(name)),
        applied: item?.applied ?? false,
        health: item?.health ?? "Unknown",
        reason: item?.reason ?? "",
        message: item?.message ?? "",
        member: { kind: r.kind, namespace: r.namespace ?? "", name: r.name },
      };
    }),
  };
}

export function rolloutRows(bindings: readonly ResourceBinding[]): RolloutRow[] {
  return bindings
    .filter((b) => b.status?.rollout !== undefined)
    .map((b) => {
      const s = b.status?.rollout;
      const r = b.spec.resource;
      return {
        kind: r.kind,
        namespace: r.namespace ?? "",
        name: r.name,
        phase: s?.paused ? "Paused" : (s?.phase ?? ""),
        revision: short(s?.revision),
        stableRevision: short(s?.stableRevision),
        waitingFor: s?.waitingFor ?? "",
        message: s?.message ?? "",
        clusters: (s?.clusters ?? []).map((c) => ({ name: c.name, phase: c.phase, revision: short(c.revision) })),
      };
    });
}

export function dnsRows(records: readonly (ServiceDNSRecord | IngressDNSRecord)[]): DnsRow[] {
  return records.map((rec) => {
    const ready = rec.status?.conditions?.find((c) => c.type === "Ready");
    const clusters = (rec.status?.dns ?? []).map((d) => d.cluster);
    return { kind: rec.kind, namespace: rec.metadata.namespace ?? "", name: rec.metadata.name ?? "", ready: ready?.status ?? "Unknown", reason: ready?.reason ?? "", message: ready?.message ?? "", clusters };
  });
}

/** The features panel: each list is present only when the feature is in use. */
export function features(input: { bindings: ResourceBinding[]; dnsRecords: readonly (ServiceDNSRecord | IngressDNSRecord)[] }) {
  return { rollouts: rolloutRows(input.bindings), dns: dnsRows(input.dnsRecords), heldDeletions: heldDeletions(input.bindings) };
}
