// Fields of Karmada's PropagationPolicy that Flotilla stores but does not act on yet. A policy
// that sets one is never silently ignored: its bindings carry the condition
// PolicyFieldsSupported=False naming each field, and are scheduled as if it were unset. Pure.
// test/karmada-fields.test.ts keeps this list and Karmada's field table in step.
import type { PropagationPolicy } from "../../shared/api/types.ts";

/** Each field Flotilla accepts but does not act on, with what it would do: present when set. */
export const UNACTED_FIELDS: readonly { path: string; isSet: (p: PropagationPolicy) => boolean }[] = [
  { path: "spec.schedulePriority", isSet: (p) => p.spec.schedulePriority !== undefined },
];

/** The fields this policy sets that Flotilla does not act on, in UNACTED_FIELDS order. */
export function unactedFields(policy: PropagationPolicy): string[] {
  return UNACTED_FIELDS.filter((f) => f.isSet(policy)).map((f) => f.path);
}

/** The condition message for them, or undefined when there are none. */
export function unactedMessage(policy: PropagationPolicy): string | undefined {
  const fields = unactedFields(policy);
  if (fields.length === 0) return undefined;
  const who = `${policy.kind} ${policy.metadata.namespace ? `${policy.metadata.namespace}/` : ""}${policy.metadata.name ?? ""}`;
  return `${who} sets ${fields.join(", ")}, which Flotilla accepts but does not act on yet: this template is scheduled as if ${fields.length === 1 ? "it were" : "they were"} unset`;
}
