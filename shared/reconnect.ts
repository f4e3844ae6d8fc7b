// How agents reconnect to the hub, which the control plane must allow for when it judges
// clusters after a restart or failover (DESIGN §11).

/** The longest an agent waits between reconnect attempts (full jitter below it). */
export const AGENT_MAX_RECONNECT_BACKOFF_MS = 30_000;

/**
 * The longest an agent can take to be heard again once the hub is back: its gRPC channel
 * reconnects within AGENT_MAX_RECONNECT_BACKOFF_MS (the agent caps the channel's own backoff
 * there), and its stream attempt follows within another AGENT_MAX_RECONNECT_BACKOFF_MS.
 */
export const AGENT_RECONNECT_WORST_CASE_MS = 2 * AGENT_MAX_RECONNECT_BACKOFF_MS;
