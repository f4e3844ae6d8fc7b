// Which registration of the cluster each record was applied under (issue 37, item 7): a Work of an
// earlier registration (another Cluster uid than the agent's certificate names now) is named in
// the Hello, and the hub removes none of them for a placement change. Pure.
import type { AppliedRecord } from "./applied-record.ts";

/** The Works last applied under an earlier registration than `now` (none when the certificate names no uid). */
export function earlierRegistrationKeys(records: Iterable<AppliedRecord>, now: string | undefined): string[] {
  if (now === undefined) return [];
  return [...records].filter((r) => r.registration !== undefined && r.registration !== now).map((r) => r.key);
}

/**
 * Records of agents before registrations were recorded name none: they are taken as this
 * registration's (the one the agent runs under as it first starts with them). The records to write.
 */
export function stampedRecords(records: Iterable<AppliedRecord>, now: string | undefined): AppliedRecord[] {
  if (now === undefined) return [];
  return [...records].filter((r) => r.registration === undefined).map((r) => ({ ...r, registration: now }));
}
