// A record's Ready condition: where the user looks to learn whether their names are published,
// and, when they are not, why (DESIGN §12, "bad input gets a clear answer"). Pure.
import type { Condition } from "../../shared/api/types.ts";

/** Why a record's names are not (or no longer) what its spec asks for. */
export type RecordProblem =
  /** spec.domainRef names no Domain: nothing to publish under; what was published stays. */
  | { reason: "DomainNotFound"; domainRef: string }
  /** The control cluster refused the DNSEndpoint (its message says why). */
  | { reason: "DNSEndpointRejected"; message: string }
  /** A DNSEndpoint of the record's name exists that the record does not control; it is left alone. */
  | { reason: "DNSEndpointConflict"; message: string };

/** The condition's message for a problem. */
export function problemMessage(p: RecordProblem): string {
  switch (p.reason) {
    case "DomainNotFound":
      return `Domain "${p.domainRef}" not found: no names are published or changed for this record until it exists (names published before stay)`;
    case "DNSEndpointRejected":
      return `the DNSEndpoint was refused: ${p.message}`;
    case "DNSEndpointConflict":
      return p.message;
  }
}

/**
 * The record's conditions: Ready True once its DNSEndpoint holds what the record asks for, else
 * False with the problem. The transition time moves only when the status does, so a record whose
 * state holds is not rewritten.
 */
export function recordConditions(input: { problem?: RecordProblem; endpointName: string; generation?: number; previous?: Condition[]; now: string }): Condition[] {
  const { problem } = input;
  const ready: Omit<Condition, "lastTransitionTime"> =
    problem === undefined
      ? { type: "Ready", status: "True", reason: "RecordsPublished", message: `DNSEndpoint ${input.endpointName} holds this record's names` }
      : { type: "Ready", status: "False", reason: problem.reason, message: problemMessage(problem) };
  const before = input.previous?.find((c) => c.type === "Ready");
  const lastTransitionTime = before?.status === ready.status ? before.lastTransitionTime : input.now;
  return [{ ...ready, lastTransitionTime, ...(input.generation !== undefined ? { observedGeneration: input.generation } : {}) }];
}
