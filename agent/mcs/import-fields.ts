// What the agent adds to a ServiceImport Flotilla applied (issue 40): pure. Its IPs are the
// derived Service's in this member (KEP-1645: `ips` match `ipFamilies`, in order), and its status
// lists the exporting clusters and says it is Ready.
import { type ClustersetStatus, MCS_IMPORT_LABEL, MCS_SERVICE_NAME_LABEL } from "../../shared/api/mcs.ts";
import type { KubeObject } from "../../shared/api/types.ts";
import type { ServiceObject } from "./export-report.ts";
import { type TimedCondition, timedConditions } from "./export-conditions.ts";

export interface ServiceImportObject extends KubeObject {
  spec?: { type?: string; ips?: string[]; ipFamilies?: string[] };
  status?: { clusters?: { cluster: string }[]; conditions?: TimedCondition[]; endpointSliceObjects?: string };
}

/** The IPs the import should carry, or undefined when there is nothing to set (Headless, or no IP allocated yet). */
export function importIps(imp: ServiceImportObject, derived: ServiceObject | undefined): { ips: string[]; ipFamilies: string[] } | undefined {
  if (imp.spec?.type !== "ClusterSetIP" || derived === undefined) return undefined;
  // Only the Service Flotilla made for this import: never a user's Service that took the name.
  const labels = derived.metadata.labels ?? {};
  if (labels[MCS_IMPORT_LABEL] !== "true" || labels[MCS_SERVICE_NAME_LABEL] !== imp.metadata.name) return undefined;
  const ips = (derived.spec?.clusterIPs ?? (derived.spec?.clusterIP === undefined ? [] : [derived.spec.clusterIP])).filter((ip) => ip !== "" && ip !== "None");
  const families = derived.spec?.ipFamilies ?? [];
  if (ips.length === 0 || ips.length !== families.length) return undefined;
  return { ips: ips.slice(0, 2), ipFamilies: families.slice(0, 2) };
}

/** Whether the import's IPs differ from those it should carry. */
export function ipsDiffer(imp: ServiceImportObject, want: { ips: string[]; ipFamilies: string[] }): boolean {
  return JSON.stringify(imp.spec?.ips ?? []) !== JSON.stringify(want.ips) || JSON.stringify(imp.spec?.ipFamilies ?? []) !== JSON.stringify(want.ipFamilies);
}

/** The import's status to write, or undefined when it already says so. */
export function importStatus(imp: ServiceImportObject, clusterset: ClustersetStatus | undefined, now: string): ServiceImportObject["status"] | undefined {
  const clusters = (clusterset?.clusters ?? []).map((cluster) => ({ cluster }));
  const ready = timedConditions([{ type: "Ready", status: "True", reason: "Ready", message: "imported from the clusterset's exports" }], imp.status?.conditions ?? [], now);
  const sameClusters = JSON.stringify(imp.status?.clusters ?? []) === JSON.stringify(clusters);
  if (ready === undefined && sameClusters && imp.status?.endpointSliceObjects === "Present") return undefined;
  return { clusters, conditions: ready ?? imp.status?.conditions ?? [], endpointSliceObjects: "Present" };
}
