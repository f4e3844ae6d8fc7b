// The Cluster's Accepted condition (OCM's HubAcceptedManagedCluster), when the control plane
// requires acceptance: it tells the user why a new cluster receives nothing, and what to run. Pure.
import type { Cluster, Condition } from "../../shared/api/types.ts";

export const ACCEPTED_CONDITION = "Accepted";

/** The Accepted condition a Cluster should show; undefined when acceptance is not required. */
export function acceptanceCondition(c: Cluster, requireAcceptance: boolean, now: number): Condition | undefined {
  if (!requireAcceptance) return undefined;
  const name = c.metadata.name ?? "";
  const accepted = c.spec?.hubAcceptsClient === true;
  const status = accepted ? "True" : "False";
  const previous = c.status?.conditions?.find((x) => x.type === ACCEPTED_CONDITION);
  return {
    type: ACCEPTED_CONDITION,
    status,
    reason: accepted ? "HubAccepted" : "AwaitingAcceptance",
    message: accepted
      ? "an admin accepted this cluster; it receives its Work"
      : `the control plane requires acceptance (--require-acceptance): this cluster receives no Work until an admin runs \`flotillactl accept ${name}\` (which sets spec.hubAcceptsClient: true)`,
    lastTransitionTime: previous?.status === status && previous.lastTransitionTime ? previous.lastTransitionTime : new Date(now).toISOString(),
  };
}
