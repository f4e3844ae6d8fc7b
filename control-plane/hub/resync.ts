// The resync diff of DESIGN §5: when an agent (re)connects it reports the {work key → content hash}
// it holds, and the hub sends only what differs, so a reconnect where nothing changed moves no
// manifests. The caller must only plan against a synced hub cache: an empty hub map here means
// "delete everything the agent holds".

/** What the hub sends a connecting agent: keys to upsert and keys to delete, each sorted. */
export interface ResyncPlan {
  upserts: string[];
  deletes: string[];
}

/** Upserts for hub Works the agent lacks or holds at another hash; deletes for agent Works the hub lacks. */
export function planResync(agentHolds: Record<string, string>, hub: ReadonlyMap<string, string>): ResyncPlan {
  const upserts: string[] = [];
  for (const [key, hash] of hub) {
    if (!Object.hasOwn(agentHolds, key) || agentHolds[key] !== hash) upserts.push(key);
  }
  const deletes = Object.keys(agentHolds).filter((key) => !hub.has(key));
  return { upserts: upserts.sort(), deletes: deletes.sort() };
}
