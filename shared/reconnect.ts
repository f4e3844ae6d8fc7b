// How agents reconnect to the hub, which the control plane must allow for when it judges
// clusters after a restart or failover (DESIGN §11).

/** An agent's first backoff between reconnect attempts (it doubles from there). */
export const AGENT_MIN_RECONNECT_BACKOFF_MS = 500;

/** The longest an agent waits between reconnect attempts (full jitter below it); its --max-reconnect-backoff may lower it, never raise it. */
export const AGENT_MAX_RECONNECT_BACKOFF_MS = 30_000;

/** Why an agent's --max-reconnect-backoff (ms) is refused, or undefined when it is one it may take. */
export function maxReconnectBackoffProblem(ms: number): string | undefined {
  if (!Number.isFinite(ms)) return `must be a duration (got ${ms})`;
  if (ms > AGENT_MAX_RECONNECT_BACKOFF_MS) return `must be at most ${AGENT_MAX_RECONNECT_BACKOFF_MS / 1000}s, which the control plane allows an agent to reconnect in (got ${ms / 1000}s)`;
  if (ms < AGENT_MIN_RECONNECT_BACKOFF_MS) return `must be at least ${AGENT_MIN_RECONNECT_BACKOFF_MS}ms, the first backoff (got ${ms}ms)`;
  return undefined;
}

/**
 * The longest an agent can take to be heard again once the hub is back: its gRPC channel
 * reconnects within AGENT_MAX_RECONNECT_BACKOFF_MS (the agent caps the channel's own backoff
 * there), and its stream attempt follows within another AGENT_MAX_RECONNECT_BACKOFF_MS.
 */
export const AGENT_RECONNECT_WORST_CASE_MS = 2 * AGENT_MAX_RECONNECT_BACKOFF_MS;

/**
 * Issue 25: the trailing metadata key of an UNAVAILABLE refusal that tells the agent how many
 * milliseconds to wait before it tries again (the hub's admission gate gives each refused agent
 * a slot of its own). The agent waits that long plus jitter, instead of its own backoff.
 */
export const RETRY_AFTER_METADATA = "retry-after-ms";

/**
 * Issue 25: set on a refusal from a replica that holds more than its share of the fleet: the agent
 * reconnects on a new connection (a new channel), which the Service may send to another replica.
 */
export const RECONNECT_ELSEWHERE_METADATA = "reconnect-elsewhere";

/** The share of a hub's retry-after an agent adds at random, so that agents given one slot do not return together. */
export const RETRY_AFTER_JITTER = 0.1;

/**
 * How long an agent waits before its next stream (pure; random in [0, 1)):
 * - the hub said when (retryAfterMs): that long plus up to RETRY_AFTER_JITTER of it;
 * - the first attempt after a synced stream ended, when a hub told a spread window: uniformly
 *   over the window (at least the first backoff), so that a fleet cut off at once returns spread out;
 * - otherwise exponential backoff from minBackoffMs to maxBackoffMs, with full jitter.
 */
export function reconnectDelay(input: { attempt: number; minBackoffMs: number; maxBackoffMs: number; retryAfterMs?: number; spreadMs?: number; random: number }): number {
  const { attempt, minBackoffMs, maxBackoffMs, retryAfterMs, spreadMs, random } = input;
  if (retryAfterMs !== undefined && retryAfterMs > 0) return Math.round(retryAfterMs * (1 + RETRY_AFTER_JITTER * random));
  const cap = Math.min(maxBackoffMs, minBackoffMs * 2 ** attempt);
  if (attempt === 0 && spreadMs !== undefined && spreadMs > cap) return Math.round(random * spreadMs);
  return Math.round(random * cap);
}

/** The retry-after a refusal's trailing metadata carries, in ms, or undefined (none, or not a sane number). */
export function retryAfterOf(values: unknown[] | undefined): number | undefined {
  const v = Number(values?.[0]?.toString());
  return Number.isFinite(v) && v > 0 ? Math.min(v, 60 * 60_000) : undefined;
}
