// Folds agents' WorkStatus reports into a binding's aggregatedStatus: pure.
import type { AggregatedStatusItem, HealthWord } from "../../shared/api/types.ts";
import { Health, type ResourceIdentifier, type WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";

const healthWords: Record<number, HealthWord> = {
  [Health.HEALTH_HEALTHY]: "Healthy",
  [Health.HEALTH_PROGRESSING]: "Progressing",
  [Health.HEALTH_UNHEALTHY]: "Unhealthy",
  [Health.HEALTH_UNKNOWN]: "Unknown",
};

/**
 * The most bytes of an object's .status one cluster's entry holds: a binding stays far below
 * etcd's limit whatever one agent reports (a Deployment's status is under 2 KiB).
 */
export const MAX_ENTRY_STATUS_BYTES = 16 * 1024;

export interface AggregateInput {
  /** The binding's target clusters. */
  targets: string[];
  /** The latest report per cluster (tombstones have deleted=true). */
  reports: ReadonlyMap<string, WorkStatus>;
  /** What the binding's status already says (survives a control-plane restart). */
  persisted: AggregatedStatusItem[];
  /** Clusters that exist; items of unjoined clusters are released. */
  existingClusters: ReadonlySet<string>;
  /** Clusters whose Ready condition is not True. */
  notReady: ReadonlySet<string>;
  /** The binding is being deleted: no cluster is a target any more. */
  deleting: boolean;
  /** The clusters this replica writes entries for (see StatusController); all when undefined. */
  owned?: ReadonlySet<string>;
}

/** The binding's aggregatedStatus, sorted by cluster. */
export function aggregateStatus(input: AggregateInput): AggregatedStatusItem[] {
  const targets = new Set(input.deleting ? [] : input.targets);
  const persisted = new Map(input.persisted.map((i) => [i.clusterName, i]));
  const items: AggregatedStatusItem[] = [];
  const names = new Set([...targets, ...input.reports.keys(), ...persisted.keys()]);
  for (const cluster of [...names].sort()) {
    if (!input.existingClusters.has(cluster)) continue;
    if (input.owned !== undefined && !input.owned.has(cluster)) continue;
    const report = input.reports.get(cluster);
    const before = persisted.get(cluster);
    if (targets.has(cluster)) {
      let item: AggregatedStatusItem | undefined;
      if (report !== undefined && !report.deleted) item = fromReport(cluster, report);
      else if (before !== undefined && before.reason !== "WaitingForRemoval") item = { ...before };
      if (item === undefined) continue; // nothing heard yet: conditions say "waiting for the agent"
      if (input.notReady.has(cluster)) {
        item = { ...item, reason: "ClusterNotReady", message: `cluster ${cluster} is not ready; showing its last report` };
      }
      items.push(item);
      continue;
    }
    // Not a target: it may still hold the object until its agent confirms the removal.
    const confirmed = report?.deleted === true;
    const mayHold = (report !== undefined && !report.deleted) || (report === undefined && before !== undefined);
    if (!confirmed && mayHold) {
      const held = report?.reason === "DeletionHeld";
      // The agent's word on why it has not removed it yet (a Namespace kept for objects Flotilla does not manage, a failed delete).
      const why = report !== undefined && report.reason !== "" && report.message !== "" ? `: ${report.reason}: ${report.message}` : "";
      items.push({ clusterName: cluster, applied: false, reason: held ? "DeletionHeld" : "WaitingForRemoval", message: held ? report.message : `waiting for the agent to remove it${why}` });
    }
  }
  return items;
}

function fromReport(cluster: string, r: WorkStatus): AggregatedStatusItem {
  const first = r.manifests[0];
  let status: Record<string, unknown> | undefined;
  // One cluster's entry never carries more than its share of the binding (etcd takes 1.5 MiB an object).
  const tooLarge = first !== undefined && first.status.byteLength > MAX_ENTRY_STATUS_BYTES;
  if (first !== undefined && first.status.byteLength > 0 && !tooLarge) {
    try {
      status = JSON.parse(Buffer.from(first.status).toString("utf8")) as Record<string, unknown>;
    } catch {
      status = undefined;
    }
  }
  const item: AggregatedStatusItem = {
    clusterName: cluster,
    applied: r.applied,
    health: healthWords[first?.health ?? Health.HEALTH_UNKNOWN] ?? "Unknown",
    reason: (r.reason || "") as AggregatedStatusItem["reason"],
    observedHash: r.observedHash,
  };
  if (r.message) item.message = r.message;
  if (tooLarge) {
    const note = `its object's status (${first.status.byteLength} bytes) is left out: a cluster's entry holds at most ${MAX_ENTRY_STATUS_BYTES} bytes of it`;
    item.message = item.message ? `${item.message}; ${note}` : note;
  }
  if (status !== undefined) item.status = status;
  // The entry describes the template's object: only a core Service's count is its own (DNS reads it).
  if (first?.readyEndpoints !== undefined && isCoreService(first.resource)) item.readyEndpoints = first.readyEndpoints;
  // A workload's pods the member cannot place (the control plane moves them after --unschedulable-threshold).
  if ((first?.unschedulableReplicas ?? 0) > 0 && first?.unschedulableSince !== undefined) {
    item.unschedulableReplicas = first.unschedulableReplicas;
    item.unschedulableSince = first.unschedulableSince;
  }
  return item;
}

function isCoreService(r: ResourceIdentifier | undefined): boolean {
  return r !== undefined && r.group === "" && r.version === "v1" && r.kind === "Service";
}
