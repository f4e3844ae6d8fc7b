// Works the agent holds by hash only (issue 12): after a restart it has its applied records (work
// key → hash + the objects applied) but no manifests. It says so in its Hello, so the hub sends
// only the Works whose hash differs; for the others it reports status from the live objects and
// asks for the contents only when one of them changes. Pure.
import type { KubeObject } from "../../shared/api/types.ts";
import { contentHash } from "../../shared/content-hash.ts";
import type { AppliedRecord, AppliedResource } from "./applied-record.ts";
import { isOurs, sameApplied } from "./deletion-judge.ts";

/**
 * The Hello's work key → hash. A record the agent can stand for by hash (every manifest of that
 * version applied, none left alone) gives its hash; any other record, or one whose contents the
 * agent asked for, gives "" so that the hub sends the Work again if it has it (and judges it if
 * not). A Work held with its manifests gives the hash it holds.
 */
export function helloHashes(records: Iterable<AppliedRecord>, held: Iterable<{ key: string; hash: string }>, wanted: ReadonlySet<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of records) out[r.key] = r.whole === true && !wanted.has(r.key) ? r.hash : "";
  for (const w of held) out[w.key] = w.hash;
  return out;
}

/**
 * A fingerprint of a by-hash Work's member objects, as far as Flotilla put them there: what the
 * member's controllers write on their own (status, resourceVersion, managedFields) is left out,
 * so a status change is no drift; anything else (a spec or data edit, a label, a deleted or
 * recreated object) changes it.
 */
export function liveFingerprint(objects: readonly (KubeObject | undefined)[]): string {
  return contentHash(
    objects.map((o) => {
      if (o === undefined) return null;
      const { status: _status, metadata, ...rest } = o as KubeObject & { status?: unknown };
      const { resourceVersion: _rv, managedFields: _mf, ...meta } = metadata as KubeObject["metadata"] & { managedFields?: unknown };
      return { ...rest, metadata: meta };
    }),
  );
}

/**
 * Whether one recorded object of a by-hash Work has drifted from what was applied: gone, no
 * longer Flotilla's, or another object than the one applied (another uid). The agent then asks
 * the hub for the Work's contents; it never deletes on it.
 */
export function objectDrifted(recorded: AppliedResource, live: KubeObject | undefined, label: string, owner?: string): boolean {
  return !isOurs(live, label, owner) || !sameApplied(recorded, live);
}
