// The status part: agents' reports → ResourceBinding status → the template's .status, plus the
// Warning Events on templates.
import { counterOf } from "../../shared/metrics.ts";
import { parseWorkKey, templateKeyOfBinding } from "../../shared/work-key.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import type { Hub } from "../hub/hub.ts";
import { writesEntry } from "./cluster-view.ts";
import { ForwardedClusters } from "./forwarded-clusters.ts";
import { HandedClusters } from "./handed-clusters.ts";
import { type BindingRecord, removalReport, removalsConfirmed } from "./removal-confirmation.ts";
import { StatusController } from "./status-controller.ts";

/** The status part, and its records of the clusters whose entries replicas hand to the leader (issue 42), which peers/ keeps. */
export interface StatusPart extends Part {
  /** On a replica that is not the leader: the clusters a following leader takes from it. */
  handed: HandedClusters;
  /** On the leader: the clusters it writes for other replicas, from their forwarded reports. */
  forwarded: ForwardedClusters;
  /** Whether this replica speaks for the cluster: its agent streams here, or did last with nobody since. */
  heard(cluster: string): boolean;
}

export function startStatus(ctx: ControlPlaneContext, links: { hub: Hub; heardHere: (cluster: string) => boolean }): StatusPart {
  const { caches, works, statuses, log, events } = ctx;
  const recorder = ctx.recorder;
  // Issue 42: a cluster's entries are written by the replica its agent streams to, unless the leader takes its reports.
  const heard = (c: string) => links.hub.session(c) !== undefined || links.heardHere(c);
  const handed = new HandedClusters({ changed: (c) => statusCtl.clusterChanged(c) });
  const forwarded = new ForwardedClusters({ statuses, known: (c, key) => isKnownWork(c, key), reported: (key) => statusCtl.reported(key), changed: (c) => statusCtl.clusterChanged(c) });
  const statusCtl = new StatusController({
    caches,
    templates: ctx.templates,
    works,
    statuses,
    outcomes: ctx.outcomes,
    rest: ctx.rest,
    log,
    identity: ctx.identity,
    isLeader: ctx.isLeader,
    heardHere: (c, deleting) => writesEntry({ heard: heard(c), leader: ctx.isLeader(), handed: handed.has(c), forwarded: forwarded.writesFor(c), deleting }),
    events: recorder,
    interpreters: ctx.interpreters,
    ...(ctx.opts.bindingStatusEntries === undefined ? {} : { statusEntries: ctx.opts.bindingStatusEntries }),
    startupGraceMs: ctx.opts.clusterStartupGraceMs,
  });
  const isKnownWork = (cluster: string, key: string): boolean => {
    if (works.get(cluster, key) !== undefined || statuses.get(key).has(cluster)) return true;
    try {
      return caches.bindingOf(parseWorkKey(key)) !== undefined;
    } catch {
      return false;
    }
  };
  events.on("agentStatus", (cluster, s) => {
    // Only reports about Works that exist (or existed) for this cluster are kept, so a
    // misbehaving agent cannot grow the hub's memory with made-up keys.
    if (!isKnownWork(cluster, s.workKey)) {
      log.debug({ cluster, work: s.workKey }, "ignoring a status for a Work this cluster does not have");
      return;
    }
    if (statuses.set(cluster, s)) statusCtl.reported(s.workKey);
  });
  events.on("agentHolds", (cluster, keys) => {
    // A report from the agent's previous stream on a Work it holds but is not placed on now (it
    // was evicted while away) is stale: nothing may judge it Available from that report (a
    // failback would release the other group's copy on it). The agent reports again.
    for (const key of statuses.keysOf(cluster)) {
      if (keys.has(key) && works.get(cluster, key) === undefined && statuses.get(key).get(cluster)?.deleted !== true) statuses.forget(key, cluster);
    }
    // Only a binding that involves the cluster, or that it reported on, can wait on its agent.
    const records: BindingRecord[] = [];
    for (const key of new Set([...caches.bindingIndex.involving(cluster), ...statuses.keysOf(cluster)])) {
      const b = caches.bindingIndex.get(key);
      // A Work the agent holds is no removal to confirm (removalsConfirmed skips it): skipped before
      // its record's O(clusters) target list, which every reconnect in a storm would build for every binding.
      if (b === undefined || keys.has(key)) continue;
      records.push({ key, targets: b.spec.clusters.map((c) => c.name), deleting: b.metadata.deletionTimestamp !== undefined, entries: b.status?.aggregatedStatus ?? [], reports: statuses.get(key) });
    }
    for (const key of removalsConfirmed(cluster, keys, records)) {
      log.info({ cluster, work: key }, "the agent no longer holds a Work it was removing: removal confirmed");
      if (statuses.set(cluster, removalReport(key))) statusCtl.reported(key);
    }
  });
  // A held deletion, where a person looks: an Event on the Cluster (coalesced: one message per cluster).
  events.on("deletionHeld", (cluster) => {
    const c = caches.clusters.get(cluster);
    if (c === undefined) return;
    const message = `deletions held (by the blast-radius brake, for an outdated agent, or for a cluster that registered again); review them and why with \`flotillactl deletions list --cluster ${cluster}\`, then approve or reject`;
    void recorder.record({ apiVersion: c.apiVersion, kind: c.kind, name: cluster, ...(c.metadata.uid ? { uid: c.metadata.uid } : {}) }, { reason: "DeletionHeld", message });
  });
  events.on("agentStreamChanged", (c) => statusCtl.clusterChanged(c));
  events.on("clusterReadyChanged", (c) => statusCtl.clusterChanged(c));
  events.on("templateChanged", (k) => statusCtl.reported(k));
  ctx.outcomes.onChange((k) => statusCtl.reported(k));

  counterOf("flotilla_binding_status_writes_total", "ResourceBinding status writes.", () => statusCtl.writes.bindingStatus);
  counterOf("flotilla_template_status_writes_total", "Template status writes.", () => statusCtl.templateStatus.writes);
  counterOf("flotilla_status_reports_over_budget_total", "Work status reports kept without their objects' status: their cluster's reports were over --max-status-bytes-per-cluster.", () => statuses.overBudgetReports);
  counterOf("flotilla_events_dropped_total", "Warning Events not written: over the rate limit (a burst of 100, then 10/s).", () => recorder.dropped);
  return {
    handed,
    forwarded,
    heard,
    controllers: [statusCtl.controller],
    stop: () => handed.stop(),
    startedLeading: () => {
      statusCtl.startedLeading();
      for (const b of caches.allBindings()) statusCtl.reported(templateKeyOfBinding(b));
    },
  };
}
