// Fields of Karmada's PropagationPolicy that Flotilla stores but does not act on yet. A policy
// that sets one is never silently ignored: its bindings carry the condition
// PolicyFieldsSupported=False naming each field, and are scheduled as if it were unset. Pure.
// test/karmada-fields.test.ts keeps this list and Karmada's field table in step. Every Karmada
// v1.19 field Flotilla stores is acted on today, so the list is empty; a field added to the
// schema before it is acted on goes here.
import type { PropagationPolicy } from "../../shared/api/types.ts";

/** A stored field Flotilla does not act on: its path, and whether a policy sets it. */
export interface UnactedField {
  path: string;
  isSet: (p: PropagationPolicy) => boolean;
}

export const UNACTED_FIELDS: readonly UnactedField[] = [];

/** The fields this policy sets that Flotilla does not act on, in the list's order. */
export function unactedFields(policy: PropagationPolicy, fields: readonly UnactedField[] = UNACTED_FIELDS): string[] {
  return fields.filter((f) => f.isSet(policy)).map((f) => f.path);
}

/** The condition message for them, or undefined when there are none. */
export function unactedMessage(policy: PropagationPolicy, fields: readonly UnactedField[] = UNACTED_FIELDS): string | undefined {
  const set = unactedFields(policy, fields);
  if (set.length === 0) return undefined;
  const who = `${policy.kind} ${policy.metadata.namespace ? `${policy.metadata.namespace}/` : ""}${policy.metadata.name ?? ""}`;
  return `${who} sets ${set.join(", ")}, which Flotilla accepts but does not act on yet: this template is scheduled as if ${set.length === 1 ? "it were" : "they were"} unset`;
}
