// Whether a template change would take its namespace past a FederatedResourceQuota's overall
// (issue 26; Karmada's FederatedQuotaEnforcement, which checks bindings): pure. A change is refused
// only when it adds use of a resource that then goes past a limit: lowering replicas, or editing
// what the quota does not count, always goes through, even in a namespace already over its quota
// (a quota made smaller than what runs removes nothing: DESIGN §11).
import type { FederatedResourceQuota } from "../../shared/api/quota.ts";
import { formatExactQuantity, zeroQuantity } from "../../shared/quantity.ts";
import { compareQuantities, excessOf, usageOf, type Workload } from "./quota-usage.ts";

export interface QuotaCheck {
  /** The namespace's FederatedResourceQuotas. */
  quotas: readonly FederatedResourceQuota[];
  /** What the namespace's other workloads take. */
  others: readonly Workload[];
  /** What this template takes now (its binding's schedule, or its stored version's estimate). */
  before: readonly Workload[];
  /** What it would take after the change. */
  after: readonly Workload[];
}

/**
 * The refusal message (Karmada's words, then what takes what), or undefined to allow. `what`
 * names the template ("Deployment web").
 */
export function quotaRefusal(check: QuotaCheck, what: string): string | undefined {
  const messages: string[] = [];
  const byName = [...check.quotas].sort((a, b) => ((a.metadata.name ?? "") < (b.metadata.name ?? "") ? -1 : 1));
  for (const frq of byName) {
    const overall = frq.spec.overall;
    const after = usageOf(check.after, overall);
    const before = usageOf(check.before, overall);
    const others = usageOf(check.others, overall);
    const total = usageOf([...check.others, ...check.after], overall);
    for (const e of excessOf(total, overall)) {
      const mine = after.get(e.resource) ?? zeroQuantity;
      if (compareQuantities(mine, before.get(e.resource) ?? zeroQuantity) <= 0) continue;
      messages.push(
        `FederatedResourceQuota(${frq.metadata.namespace ?? ""}/${frq.metadata.name ?? ""}) exceeded for resource ${e.resource}: requested sum ${formatExactQuantity(e.used)}, limit ${formatExactQuantity(e.hard)} (${what} takes ${formatExactQuantity(mine)}, the namespace's other workloads ${formatExactQuantity(others.get(e.resource) ?? zeroQuantity)})`,
      );
    }
  }
  return messages.length === 0 ? undefined : messages.join("; ");
}
