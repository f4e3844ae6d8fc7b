// Whether a registration whose Cluster already exists is the retry of the one that created it
// (its answer was lost on the way): pure. The same bootstrap token and the same key (the CSR
// proves the caller holds it) get the certificate again; anything else is a taken name.
import type { Cluster } from "../../shared/api/types.ts";

/** Annotations a registration leaves on the Cluster it creates. */
export const REGISTERED_WITH_TOKEN = "flotilla.dev/registered-with-token";
export const REGISTERED_KEY = "flotilla.dev/registered-key-sha256";

export type RetryDecision = { action: "sign"; uid: string } | { action: "refuse"; reason: "taken" | "unjoining" };

/**
 * existing: the Cluster of the requested name; tokenId: the (valid) token presented;
 * keySha256: the SHA-256 of the CSR's public key (SubjectPublicKeyInfo, hex).
 */
export function decideRegistrationRetry(existing: Cluster, tokenId: string, keySha256: string): RetryDecision {
  if (existing.metadata.deletionTimestamp !== undefined) return { action: "refuse", reason: "unjoining" };
  const a = existing.metadata.annotations ?? {};
  const uid = existing.metadata.uid ?? "";
  if (uid !== "" && a[REGISTERED_WITH_TOKEN] === tokenId && keySha256 !== "" && a[REGISTERED_KEY] === keySha256) return { action: "sign", uid };
  return { action: "refuse", reason: "taken" };
}
