// Issue 25: agents spread over every replica. A Service sends each new connection to a random
// replica, and an agent keeps its one connection for as long as it lives: after a rolling restart
// or a replica's loss, the replicas that stayed hold everyone, and a new replica holds nobody.
// A replica that holds more than its share (the fleet ÷ the replicas it knows of, plus slack)
// refuses a new agent and tells it to reconnect elsewhere: on a new connection, which the Service
// sends to a random replica again. Pure.

/** How far over an even share a replica goes before it sends new agents elsewhere. */
export const SHARE_SLACK = 0.1;

/**
 * Whether a replica should send a new agent elsewhere. `replicas`: the replicas it knows of
 * (itself included); with one, never. An agent already streaming here (a replacing stream) stays.
 */
export function overShare(input: { connectedHere: number; clusters: number; replicas: number; alreadyHere: boolean }): boolean {
  if (input.alreadyHere || input.replicas <= 1) return false;
  const share = Math.ceil((input.clusters / input.replicas) * (1 + SHARE_SLACK)) + 1;
  return input.connectedHere >= share;
}

/** The replicas a replica knows of: itself, and every other holder of a live cluster Lease. */
export function knownReplicas(holders: Iterable<string>, me: string): number {
  const all = new Set(holders);
  all.delete("");
  all.add(me);
  return all.size;
}
