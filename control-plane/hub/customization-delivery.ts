// Which interpreter customization set one agent is sent, and when (issue 21): pure. An agent that
// declares "interpreter-customizations" states the hash it holds in its Hello; it is sent the
// current set first in the resync and after each change, never a set whose hash it holds.
import type { Hello, InterpreterCustomizations } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { FEATURES } from "../../shared/protocol.ts";

export class CustomizationDelivery {
  /** The hash the agent holds (its Hello's, then what it was sent); undefined: it takes no sets. */
  private agentHash: string | undefined;
  private readonly current: () => InterpreterCustomizations;

  constructor(current: () => InterpreterCustomizations) {
    this.current = current;
  }

  /** Reads the Hello; true when the agent takes sets (the caller then offers the current one). */
  hello(h: Hello): boolean {
    if (h.protocolVersion < 2 || !h.features.includes(FEATURES.interpreterCustomizations)) return false;
    this.agentHash = h.customizationsHash ?? "";
    return true;
  }

  /** Whether the agent takes sets. */
  get takes(): boolean {
    return this.agentHash !== undefined;
  }

  /** The set to send now, or undefined when the agent takes none or holds this one; a set returned counts as held. */
  next(): InterpreterCustomizations | undefined {
    if (this.agentHash === undefined) return undefined;
    const set = this.current();
    if (set.contentHash === this.agentHash) return undefined;
    this.agentHash = set.contentHash;
    return set;
  }
}
