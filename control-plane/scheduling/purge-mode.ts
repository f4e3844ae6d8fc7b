// Karmada v1.18's deprecated purge mode names (issue 39): a ported policy may say Immediately or
// Graciously in spec.failover, which Karmada still reads as Directly and Gracefully (v1.19 refuses
// them). Flotilla reads them the same way, in one place: every reader of a purge mode asks
// purgeModeOf, and a binding holds only the new names (canonicalFailover). The apiserver warns at
// apply time (crd-install/admission-policies.ts, flotilla-deprecated-purge-mode).
import type { ApplicationFailoverBehavior, ClusterFailoverBehavior, FailoverBehavior, PolicyPurgeMode, PurgeMode } from "../../shared/api/types.ts";

/** Each deprecated name and the mode it means. */
export const DEPRECATED_PURGE_MODES: Readonly<Record<string, PurgeMode>> = { Immediately: "Directly", Graciously: "Gracefully" };

/** The mode a purge mode means: a deprecated name's new name, any other as it is. */
export function purgeModeOf(mode: PolicyPurgeMode | undefined): PurgeMode | undefined {
  if (mode === undefined) return undefined;
  return Object.hasOwn(DEPRECATED_PURGE_MODES, mode) ? DEPRECATED_PURGE_MODES[mode] : (mode as PurgeMode);
}

function canonical<T extends ApplicationFailoverBehavior | ClusterFailoverBehavior>(behavior: T): T {
  const mode = purgeModeOf(behavior.purgeMode);
  return mode === behavior.purgeMode ? behavior : { ...behavior, purgeMode: mode };
}

/** A policy's failover with the deprecated purge mode names replaced by what they mean. */
export function canonicalFailover(failover: FailoverBehavior): FailoverBehavior {
  const { application, cluster } = failover;
  return { ...failover, ...(application === undefined ? {} : { application: canonical(application) }), ...(cluster === undefined ? {} : { cluster: canonical(cluster) }) };
}
