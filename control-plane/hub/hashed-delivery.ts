// Which whole-list message one agent is sent, and when: pure. The interpreter customizations
// (issue 21) and the workloads to summarise (MetricsWanted, issue 22) go the same way: an agent
// that declares the feature states the hash it holds in its Hello; it is sent the current list
// first in the resync and after each change, never a list whose hash it holds.
import type { ControlMessage, Hello, InterpreterCustomizations, MetricsWanted } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { FEATURES } from "../../shared/protocol.ts";

/** A list identified by its content hash ("" for the empty list). */
export interface Hashed {
  contentHash: string;
}

export class HashedDelivery<T extends Hashed> {
  /** The hash the agent holds (its Hello's, then what it was sent); undefined: it takes no lists. */
  private agentHash: string | undefined;
  private readonly feature: string;
  private readonly held: (h: Hello) => string | undefined;
  private readonly current: () => T;

  /** feature: what the agent must declare; held: the hash its Hello states; current: the list now. */
  constructor(feature: string, held: (h: Hello) => string | undefined, current: () => T) {
    this.feature = feature;
    this.held = held;
    this.current = current;
  }

  /** Reads the Hello; true when the agent takes lists (the caller then offers the current one). */
  hello(h: Hello): boolean {
    if (h.protocolVersion < 2 || !h.features.includes(this.feature)) return false;
    this.agentHash = this.held(h) ?? "";
    return true;
  }

  /** Whether the agent takes lists. */
  get takes(): boolean {
    return this.agentHash !== undefined;
  }

  /** The list to send now, or undefined when the agent takes none or holds this one; a list returned counts as held. */
  next(): T | undefined {
    if (this.agentHash === undefined) return undefined;
    const list = this.current();
    if (list.contentHash === this.agentHash) return undefined;
    this.agentHash = list.contentHash;
    return list;
  }
}

/** The interpreter customizations' delivery. */
export const customizationDelivery = <T extends Hashed>(current: () => T) => new HashedDelivery(FEATURES.interpreterCustomizations, (h) => h.customizationsHash, current);

/** The MetricsWanted delivery. */
export const metricsWantedDelivery = <T extends Hashed>(current: () => T) => new HashedDelivery(FEATURES.workloadMetrics, (h) => h.metricsWantedHash, current);

/** The session outbox's keys of the lists (no work key starts with NUL). */
const KEYS = { customizations: "\u0000customizations", metricsWanted: "\u0000metrics-wanted" } as const;
export type ListName = keyof typeof KEYS;

/** One session's lists: which to offer after the Hello or a change, and the message for each. */
export class ListDeliveries {
  private readonly customizations: HashedDelivery<InterpreterCustomizations>;
  private readonly metricsWanted: HashedDelivery<MetricsWanted>;
  private readonly sent: Record<ListName, number>;

  /** sent: the session's counters of lists sent. */
  constructor(current: { customizations: () => InterpreterCustomizations; metricsWanted: () => MetricsWanted }, sent: Record<ListName, number>) {
    this.customizations = customizationDelivery(current.customizations);
    this.metricsWanted = metricsWantedDelivery(current.metricsWanted);
    this.sent = sent;
  }

  /** The outbox keys to mark after the Hello: the customizations first, since the Works that follow are judged with them. */
  hello(h: Hello): string[] {
    return [this.customizations.hello(h) ? KEYS.customizations : undefined, this.metricsWanted.hello(h) ? KEYS.metricsWanted : undefined].filter((k) => k !== undefined);
  }

  /** The outbox key to mark when a list changed, or undefined when the agent takes no such list. */
  changed(name: ListName): string | undefined {
    return this[name].takes ? KEYS[name] : undefined;
  }

  /** Whether an outbox key is a list's. */
  owns(key: string): boolean {
    return key === KEYS.customizations || key === KEYS.metricsWanted;
  }

  /** The message for a list's key, or undefined when the agent holds the list. */
  message(key: string): ControlMessage | undefined {
    if (key === KEYS.customizations) {
      const value = this.customizations.next();
      if (value === undefined) return undefined;
      this.sent.customizations++;
      return { kind: { $case: "interpreterCustomizations", value } };
    }
    const value = this.metricsWanted.next();
    if (value === undefined) return undefined;
    this.sent.metricsWanted++;
    return { kind: { $case: "metricsWanted", value } };
  }
}
