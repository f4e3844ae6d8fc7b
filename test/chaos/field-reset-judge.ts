// Which changes of a Deployment's spec.replicas in a member the agent had no right to make: while
// a member HPA targets the Deployment, spec.replicas is the member's (DESIGN §11, agent/apply/retain.ts),
// so from the user's first scale on, every value the member shows must be the last one the user
// set. Pure: the user's episodes and the member watch's records in, the resets out.
import type { NamespaceDeletion } from "./deletion-judge.ts";

/** One write of the scale subresource by the user, as the HPA controller would make it. */
export interface UserScale {
  /** The uid of the Deployment the write reached (a template made again meanwhile is another object). */
  uid: string;
  replicas: number;
  /** The Deployment's resourceVersion the write returned (one member's etcd revision: ordered). */
  resourceVersion: number;
  atMs: number;
}

/** A user's HPA on one Deployment in one member, from its creation until the user deleted it. */
export interface HpaEpisode {
  member: string;
  deployment: string;
  hpa: string;
  /** When the HPA was created (Date.now()). */
  fromMs: number;
  /** When the user asked to delete it; undefined: kept to the end of the run. */
  toMs?: number;
  /** The user's scales, in order. */
  scales: UserScale[];
}

/** A value of spec.replicas the member watch saw on a Deployment of Flotilla's. */
export interface ReplicaChange {
  atMs: number;
  member: string;
  deployment: string;
  uid: string;
  replicas: number;
  resourceVersion: number;
}

export interface FieldReset extends ReplicaChange {
  /** The value the user set last, which the member should have kept. */
  expected: number;
  hpa: string;
}

/** Until when the user's HPA held its Deployment: until the user asked to delete it, or a fault deleted its member namespace (Infinity: to the end). */
export function heldUntil(e: HpaEpisode, namespaces: readonly NamespaceDeletion[]): number {
  const namespaceGone = namespaces.find((n) => n.member === e.member && n.fromMs >= e.fromMs)?.fromMs;
  return Math.min(e.toMs ?? Infinity, namespaceGone ?? Infinity);
}

/**
 * The values of spec.replicas seen while an HPA held the Deployment: on an object (uid) the user
 * scaled, from the user's first scale of it on (by resourceVersion), before the user deleted the
 * HPA or a fault deleted the member namespace that held it (by time). Each with the user's last
 * value before it.
 */
export function judgedChanges(episodes: readonly HpaEpisode[], changes: readonly ReplicaChange[], namespaces: readonly NamespaceDeletion[] = []): FieldReset[] {
  const out: FieldReset[] = [];
  for (const c of changes) {
    for (const e of episodes) {
      if (e.member !== c.member || e.deployment !== c.deployment) continue;
      const last = e.scales.filter((s) => s.uid === c.uid && s.resourceVersion <= c.resourceVersion).at(-1);
      if (last === undefined) continue;
      if (c.atMs >= heldUntil(e, namespaces)) continue;
      out.push({ ...c, expected: last.replicas, hpa: e.hpa });
    }
  }
  return out;
}

/** The changes of spec.replicas on a Deployment an HPA holds that the user's own scales did not make. */
export function fieldResets(episodes: readonly HpaEpisode[], changes: readonly ReplicaChange[], namespaces: readonly NamespaceDeletion[] = []): FieldReset[] {
  return judgedChanges(episodes, changes, namespaces).filter((c) => c.replicas !== c.expected);
}
