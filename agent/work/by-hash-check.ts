// A Work held by hash only (applied in full before a restart, no manifests in memory): its status
// from the live objects its record names, and a request for its contents when they drifted, so
// that the normal reconcile compares and repairs them. Never deletes.
import type { Logger } from "pino";
import type { Discovery } from "../../shared/discovery.ts";
import { workKeyLabelValue } from "../../shared/work-key.ts";
import type { ObjectWatch } from "../applied/object-watch.ts";
import { asObject } from "../apply/work-manifests.ts";
import type { AppliedRecord } from "../judge/applied-record.ts";
import { liveFingerprint, objectDrifted } from "../judge/by-hash.ts";
import type { ManifestOutcome } from "../status/work-status.ts";

export interface ByHashAccess {
  discovery: Discovery;
  objects: ObjectWatch;
  owner: string | undefined;
  log: Logger;
  /** The fingerprint of each by-hash Work's objects when first checked: a change from it is drift. */
  baselines: Map<string, string>;
  /** Works whose contents the agent asked for and has not received. */
  contentWanted: Set<string>;
  requestContents: (key: string) => void;
  /** Reports the Work's status from these outcomes. */
  report: (record: AppliedRecord, outcomes: ManifestOutcome[]) => Promise<void>;
}

export async function checkByHash(s: ByHashAccess, record: AppliedRecord): Promise<void> {
  const label = workKeyLabelValue(record.key);
  const outcomes: ManifestOutcome[] = [];
  let drifted = false;
  for (const r of record.resources) {
    const res = await s.discovery.resourceFor(r.apiVersion, r.kind);
    if (res === undefined) {
      drifted = true;
      continue;
    }
    s.objects.ensure(res);
    const live = await s.objects.get(res, res.namespaced ? r.namespace || "default" : undefined, r.name);
    if (objectDrifted(r, live, label, s.owner)) drifted = true;
    outcomes.push({ manifest: asObject(r), applied: true, reason: "", message: "", live });
  }
  const fingerprint = liveFingerprint(outcomes.map((o) => o.live));
  const baseline = s.baselines.get(record.key);
  if (baseline === undefined) s.baselines.set(record.key, fingerprint);
  else if (baseline !== fingerprint) drifted = true;
  if (!drifted) {
    await s.report(record, outcomes);
  } else if (!s.contentWanted.has(record.key)) {
    s.contentWanted.add(record.key);
    s.log.info({ work: record.key }, "a member object of a Work held by hash changed; asking the hub for its contents");
    s.requestContents(record.key);
  }
}
