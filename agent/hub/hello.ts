// The Hello that opens every stream: who the agent is, what it speaks, and what it holds (DESIGN
// §5). Pure: the facts are the caller's.
import { earlierRegistration } from "../../shared/earlier-registration.ts";
import type { Hello } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { AGENT_FEATURES, PROTOCOL_VERSION } from "../../shared/protocol.ts";

export const AGENT_VERSION = "0.1.0";

export interface HelloFacts {
  clusterName: string;
  /** What it applied, by hash ("" for a Work to send again). */
  workHashes: Record<string, string>;
  /** The Works applied under an earlier registration of the cluster (judge/registration.ts). */
  earlierWorks: readonly string[];
  customizationsHash: string;
  metricsWantedHash: string;
}

/**
 * What it applied, by hash, across restarts too: the hub sends only what differs (never
 * needsContents). Works only a record names (adopted objects, a removal still failing) are told
 * too, so the hub judges them on every resync.
 */
export function helloOf(f: HelloFacts): Hello {
  return {
    clusterName: f.clusterName,
    agentVersion: AGENT_VERSION,
    workHashes: f.workHashes,
    needsContents: false,
    protocolVersion: PROTOCOL_VERSION,
    features: [...AGENT_FEATURES],
    customizationsHash: f.customizationsHash,
    metricsWantedHash: f.metricsWantedHash,
    ...earlierRegistration(Object.keys(f.workHashes), f.earlierWorks),
  };
}
