// Whether the hub takes an agent's report about a Work (DESIGN §7): pure. An agent speaks only
// for Works the hub sent to its cluster. The cluster is the one its client certificate names,
// never one a message says. A report about any other Work (a forged WaitingForRemoval that
// would hold another cluster's binding, made-up keys that would grow memory) is dropped.

/** What the hub knows of one Work for the reporting cluster. */
export interface ReportFacts {
  /** The Work is in the hub's store for this cluster: the hub sends it there. */
  inStore: boolean;
  /** The hub sent this Work to the cluster on the current stream (it may be gone from the store since). */
  sentOnStream: boolean;
  /**
   * The control plane's own record says the cluster held the Work: a report it accepted earlier,
   * in memory or in the binding's aggregatedStatus (which outlives a restart). Only accepted
   * reports make such records, so an agent cannot create one for a Work it was never sent.
   */
  recorded: boolean;
}

export type ReportRejection = "NotSentToCluster";

export type ReportVerdict = { accept: true } | { accept: false; reason: ReportRejection };

/**
 * The verdict on a report (status, deletion confirmation, DeletionFailed) about one Work. A
 * deletion confirmation follows the same rule: it matters only where the cluster held the Work.
 */
export function admitReport(facts: ReportFacts): ReportVerdict {
  if (facts.inStore || facts.sentOnStream || facts.recorded) return { accept: true };
  return { accept: false, reason: "NotSentToCluster" };
}
