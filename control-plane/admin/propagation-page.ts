// GetPropagation's answer (issue 25): every cluster's detail from the control plane's memory
// (a large binding's status lists only some clusters), a page at a time, as kubectl pages a list
// (--limit, --continue). Pure.
import type { AggregatedStatusItem, ResourceBinding } from "../../shared/api/types.ts";
import type { GetPropagationResponse } from "../../shared/gen/flotilla/v1alpha1/admin.ts";
import { Health } from "../../shared/gen/flotilla/v1alpha1/agent.ts";

const HEALTH: Record<string, Health> = { Healthy: Health.HEALTH_HEALTHY, Progressing: Health.HEALTH_PROGRESSING, Unhealthy: Health.HEALTH_UNHEALTHY, Unknown: Health.HEALTH_UNKNOWN };

/** The continue token after a cluster: its name, opaque to the caller. */
export function continueToken(cluster: string): string {
  return Buffer.from(JSON.stringify({ after: cluster })).toString("base64url");
}

/** The cluster a continue token names, or an Error for one no answer gave. */
export function afterOf(token: string): string | Error {
  try {
    const v = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { after?: unknown };
    if (typeof v.after === "string") return v.after;
  } catch {
    // falls through
  }
  return new Error("the continue token is not one this command gave; start again without --continue");
}

/**
 * One page of a binding's clusters (its targets and every cluster with an entry, by name):
 * `limit` of them (0: all) after the one the token names.
 */
export function propagationPage(input: {
  binding: ResourceBinding;
  /** Every cluster's entry (caches.bindingEntries). */
  entries: readonly AggregatedStatusItem[];
  hashOf: (cluster: string) => string | undefined;
  limit: number;
  continueToken: string;
}): GetPropagationResponse | Error {
  const { binding } = input;
  const items = new Map(input.entries.map((i) => [i.clusterName, i]));
  const replicas = new Map(binding.spec.clusters.map((c) => [c.name, c.replicas ?? 0]));
  let names = [...new Set([...replicas.keys(), ...items.keys()])].sort();
  if (input.continueToken !== "") {
    const after = afterOf(input.continueToken);
    if (after instanceof Error) return after;
    names = names.filter((n) => n > after);
  }
  const page = input.limit > 0 ? names.slice(0, input.limit) : names;
  const remaining = names.length - page.length;
  const last = page.at(-1);
  return {
    clusters: page.map((cluster) => {
      const item = items.get(cluster);
      return {
        cluster,
        replicas: replicas.get(cluster) ?? 0,
        reason: item?.reason ?? "",
        message: item?.message ?? "",
        applied: item?.applied ?? false,
        health: HEALTH[item?.health ?? ""] ?? Health.HEALTH_UNSPECIFIED,
        contentHash: input.hashOf(cluster) ?? "",
      };
    }),
    continueToken: remaining > 0 && last !== undefined ? continueToken(last) : "",
    remainingItemCount: remaining,
  };
}
