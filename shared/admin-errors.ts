// Words the Admin API and flotillactl agree on: a refusal a client can act on by itself.

/** In a FAILED_PRECONDITION message: the cluster's agent streams to another control-plane replica. */
export const AGENT_ON_OTHER_REPLICA = "is not connected to this control-plane replica";
