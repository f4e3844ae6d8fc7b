// What the agent's record says about one Work (agent/applied/applied-store.ts keeps it in the
// member): the shapes every verdict on a recorded object reads. Pure: types and identity only.

/** One member object a Work applied. */
export interface AppliedResource {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  /**
   * The uid the member gave the object this Work applied (from the apply itself, as OCM's
   * AppliedManifestWork keeps it): only that object may be deleted or released for the Work
   * (deletion-judge.ts). Absent in records of older agents, and for an object left alone.
   */
  uid?: string;
}

/** What the agent applied for one Work: survives agent restarts (a pod has no lasting disk). */
export interface AppliedRecord {
  key: string;
  hash: string;
  resources: AppliedResource[];
  /**
   * Every manifest of that version applied (none left alone): after a restart the agent stands for
   * the Work by hash alone (agent/judge/by-hash.ts). Absent in records of older agents: those Works are
   * sent again once.
   */
  whole?: boolean;
  /**
   * The binding's preserveResourcesOnDeletion as last sent with the Work: a removal heard of after
   * the binding is gone still preserves (agent/judge/preserve-decision.ts). Absent means false.
   */
  preserve?: boolean;
  /**
   * The registration of the cluster (the Cluster uid its certificate named) under which the hub
   * last gave this Work and the agent applied it. A Work of an earlier registration is named in the
   * Hello, and the hub does not remove it for a placement that no longer names the cluster (issue
   * 37, item 7). Absent in records of older agents and of agents whose certificate names no uid.
   */
  registration?: string;
}

/** One recorded object's identity: apiVersion, kind, namespace and name (not its uid). */
export function resourceId(r: AppliedResource): string {
  return `${r.apiVersion}|${r.kind}|${r.namespace ?? ""}|${r.name}`;
}
