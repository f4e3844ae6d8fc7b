// When and what the fault injector breaks: a pure plan from the seed, so a run is repeatable.
import { GROUPS } from "./churn-model.ts";
import type { Random } from "./random.ts";

export type FaultKind =
  /** kill -9 the replica that holds the lease; it restarts after downMs. */
  | "kill-leader"
  /** kill -9 the replica that does not. */
  | "kill-standby"
  /** kill -9 a member's agent. */
  | "kill-agent"
  /** SIGSTOP a member's agent for downMs (past the failure threshold), then SIGCONT. */
  | "stop-agent"
  /** kill -9 a member's kube-apiserver; it restarts on the same port and data. */
  | "kill-member-apiserver"
  /** kill -9 the control cluster's kube-apiserver and etcd; both restart in place. */
  | "kill-control-storage"
  /** A person deletes a ResourceBinding in the control cluster (finalizers left as they are): no intent (DESIGN §11). */
  | "delete-binding"
  /** A person deletes a PropagationPolicy and creates it again, same spec, downMs later: no intent either. */
  | "recreate-policy"
  /** A person deletes the chaos namespace in a member: Kubernetes deletes its objects; Flotilla must bring them back. */
  | "delete-member-namespace"
  /**
   * A member registers again as a new Cluster: its agent is killed, its Cluster removed by force
   * (`flotillactl unjoin --force`), and the agent registers with a bootstrap token; the new Cluster
   * lacks the admin's labels until the admin sets them again downMs after it registered.
   */
  | "register-again"
  /** Only with --etcd-restore: the control cluster's etcd is snapshotted, and downMs later restored from it. */
  | "restore-control-etcd"
  /**
   * A rolling upgrade's mixed fleet, both ways: the standby is replaced by the previous commit's
   * Flotilla, the leader restarts so the old version takes the lease and leads for downMs, then the
   * old replica is replaced by this version again.
   */
  | "previous-version-replica";

export const FAULT_KINDS: readonly FaultKind[] = [
  "kill-leader",
  "kill-standby",
  "kill-agent",
  "stop-agent",
  "kill-member-apiserver",
  "kill-control-storage",
  "delete-binding",
  "recreate-policy",
  "delete-member-namespace",
  "previous-version-replica",
  "register-again",
];

/** How old the snapshot is that restore-control-etcd restores. */
export const ETCD_SNAPSHOT_AGE_MS = 60_000;

/** The chaos run's PropagationPolicies (churn-model.ts groupPolicyManifests): plain-g0, deploy-g0, … */
export const POLICY_NAMES: readonly string[] = GROUPS.flatMap((g) => [`plain-${g}`, `deploy-${g}`]);

export interface Fault {
  /** Offset from the start of the run. */
  atMs: number;
  kind: FaultKind;
  /** The member it hits (agent and member faults). */
  member?: string;
  /** How long the process stays down or stopped, the policy stays deleted, or the injector waits after a deletion. */
  downMs: number;
  /** recreate-policy: which PropagationPolicy. */
  policy?: string;
  /** delete-binding: which of the bindings there are then, as a fraction of their sorted list, [0, 1). */
  pick?: number;
}

export interface FaultPlanOptions {
  durationMs: number;
  members: readonly string[];
  /** The cluster failure threshold: a stopped agent stays stopped longer than this. */
  failureThresholdMs: number;
  /** Add restore-control-etcd to every round. */
  etcdRestore?: boolean;
}

/** How long a member that registered again lacks the admin's labels. */
export const REGISTER_AGAIN_UNLABELLED_MS: readonly [number, number] = [5_000, 8_000];

/** The quiet start (churn only) and the gap range between faults. */
export const FIRST_FAULT_MS = 8_000;
export const GAP_MS: readonly [number, number] = [4_000, 9_000];

/** The members in the order a fault or a user tries them: the planned one, then the next ones, round. */
export function fromPlanned<T extends { name: string }>(members: readonly T[], planned: string | undefined): T[] {
  const at = Math.max(0, members.findIndex((m) => m.name === planned));
  return [...members.slice(at), ...members.slice(0, at)];
}

const ON_MEMBER: readonly FaultKind[] = ["kill-agent", "stop-agent", "kill-member-apiserver", "delete-member-namespace", "register-again"];

/**
 * Faults at seeded times from FIRST_FAULT_MS on, GAP_MS apart, each over before the run ends. Kinds
 * come in seeded rounds of every kind, so even a short run meets each kind once.
 */
export function planFaults(rng: Random, o: FaultPlanOptions): Fault[] {
  const faults: Fault[] = [];
  let round: FaultKind[] = [];
  let at = FIRST_FAULT_MS;
  for (;;) {
    if (round.length === 0) round = shuffle(rng, o.etcdRestore ? [...FAULT_KINDS, "restore-control-etcd"] : FAULT_KINDS);
    const kind = round[0] as FaultKind;
    const downMs = downTime(rng, kind, o.failureThresholdMs);
    if (at + downMs > o.durationMs) break;
    round.shift();
    faults.push({
      atMs: at,
      kind,
      downMs,
      ...(ON_MEMBER.includes(kind) ? { member: rng.pick(o.members) } : {}),
      ...(kind === "recreate-policy" ? { policy: rng.pick(POLICY_NAMES) } : {}),
      ...(kind === "delete-binding" ? { pick: rng.next() } : {}),
    });
    at += downMs + rng.between(GAP_MS[0], GAP_MS[1]);
  }
  return faults;
}

function downTime(rng: Random, kind: FaultKind, failureThresholdMs: number): number {
  switch (kind) {
    case "stop-agent":
      return failureThresholdMs + rng.between(2_000, 6_000);
    case "recreate-policy":
      return rng.between(2_000, 5_000);
    case "restore-control-etcd":
      return ETCD_SNAPSHOT_AGE_MS;
    case "previous-version-replica":
      // How long the previous version leads; its two restarts add a few seconds each.
      return rng.between(3_000, 6_000);
    case "register-again":
      // How long the new Cluster lacks the admin's labels: past the hub's 10 s settle period
      // (--cluster-ready-settle-period), after which it tells a cluster to remove what its placement
      // dropped; the unjoin and the registration add a few seconds.
      return rng.between(REGISTER_AGAIN_UNLABELLED_MS[0], REGISTER_AGAIN_UNLABELLED_MS[1]);
    default:
      return rng.between(1_000, 4_000);
  }
}

function shuffle<T>(rng: Random, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** A user's own write in a member, beside the faults (issue 37): a copy of one of Flotilla's objects, or one deleted and applied again. */
export interface UserWrite {
  atMs: number;
  how: "copy" | "recreate";
  member: string;
  /** Which of the member's copies, as a fraction of their sorted list, [0, 1). */
  pick: number;
}

/** The gap range between users' writes: they run on their own clock, beside the faults. */
export const USER_WRITE_GAP_MS: readonly [number, number] = [10_000, 20_000];

/** Users' writes at seeded times from FIRST_FAULT_MS on, copies and re-creations in turn, each on a seeded member. */
export function planUserWrites(rng: Random, o: Pick<FaultPlanOptions, "durationMs" | "members">): UserWrite[] {
  const out: UserWrite[] = [];
  for (let at = FIRST_FAULT_MS + rng.between(0, USER_WRITE_GAP_MS[0]), i = 0; at < o.durationMs - USER_WRITE_GAP_MS[0]; at += rng.between(USER_WRITE_GAP_MS[0], USER_WRITE_GAP_MS[1]), i++) {
    out.push({ atMs: at, how: i % 2 === 0 ? "copy" : "recreate", member: rng.pick(o.members), pick: rng.next() });
  }
  return out;
}

/**
 * A user's HPA in a member (issue 37): at atMs an HPA on one of Flotilla's Deployments there and a
 * scale to `replicas` (as the HPA controller would write it); `rescaleAfterMs` later a scale to
 * `rescaleTo`; `updateAfterMs` after the start the template's replicas change (to `templateReplicas`,
 * or the next value if that is the template's already); at endMs the user deletes the HPA, or keeps
 * it to the end of the run (endMs undefined).
 */
export interface HpaPlan {
  atMs: number;
  member: string;
  /** Which of the member's Deployments of Flotilla's, as a fraction of their sorted list, [0, 1). */
  pick: number;
  replicas: number;
  rescaleAfterMs: number;
  rescaleTo: number;
  updateAfterMs: number;
  templateReplicas: number;
  endMs?: number;
}

/** How long a user keeps an HPA before deleting it, and the gap before the next. */
export const HPA_HOLD_MS: readonly [number, number] = [24_000, 36_000];
export const HPA_GAP_MS: readonly [number, number] = [4_000, 10_000];
/** The user's replicas: above any template's (6 to 12 in all), so never the template's division. */
export const HPA_REPLICAS: readonly [number, number] = [13, 20];

/**
 * One HPA at a time from FIRST_FAULT_MS on, each held HPA_HOLD_MS, rescaled and its template's
 * replicas changed while it holds; the one whose hold would pass the end is kept to the end.
 */
export function planHpas(rng: Random, o: Pick<FaultPlanOptions, "durationMs" | "members">): HpaPlan[] {
  const out: HpaPlan[] = [];
  for (let at = FIRST_FAULT_MS + rng.between(2_000, 8_000); at < o.durationMs - HPA_HOLD_MS[0]; ) {
    const hold = rng.between(HPA_HOLD_MS[0], HPA_HOLD_MS[1]);
    const replicas = rng.between(HPA_REPLICAS[0], HPA_REPLICAS[1]);
    // Another value than the first scale's.
    const other = rng.between(HPA_REPLICAS[0], HPA_REPLICAS[1] - 1);
    const ends = at + hold + HPA_GAP_MS[1] < o.durationMs - HPA_HOLD_MS[0];
    out.push({
      atMs: at,
      member: rng.pick(o.members),
      pick: rng.next(),
      replicas,
      rescaleAfterMs: rng.between(4_000, 9_000),
      rescaleTo: other >= replicas ? other + 1 : other,
      updateAfterMs: rng.between(3_000, 12_000),
      templateReplicas: rng.between(6, 12),
      ...(ends ? { endMs: at + hold } : {}),
    });
    if (!ends) break;
    at += hold + rng.between(HPA_GAP_MS[0], HPA_GAP_MS[1]);
  }
  return out;
}
