// The wave planner (issue 23): from a rollout's persisted state, what the clusters report and the
// time, the next state: which revision each cluster is told to run, and where the rollout is.
// Pure and idempotent (the same input gives the same state), so a restarted or new leader resumes
// exactly where the last one was, and no cluster jumps ahead.
//
// A cluster rolling to a revision is Updating until it runs that revision healthy (the kind's
// interpreter's health, observedGeneration included), then Soaking for minSuccessTime, then
// Succeeded; it Failed when its apply failed (UpdateFailed) or it was not healthy within the
// progress deadline. Groups go in order, each at most maxConcurrency clusters at once and the
// fleet at most maxUnavailable unhealthy while more start; approvals gate a group's start
// (BeforeGroup) or the next group (AfterGroup). Past maxFailures the rollout pauses, or rolls every
// reached cluster back to the last revision that succeeded everywhere: a rollback is a rollout
// too, the failed clusters first, then the groups in reverse order. Nothing here deletes.
import type { ClusterRollout, RolloutState } from "../../shared/api/types.ts";
import type { PlannedGroup, RolloutPlan } from "./rollout-groups.ts";

/** What a cluster reports of the object rolled out. */
export interface Observed {
  /** The revision its agent applied and reported on (undefined: none reported yet). */
  revision?: string;
  /** Healthy at that revision. */
  healthy: boolean;
  /** The apply failed (UpdateFailed): why. */
  failed?: string;
}

export interface WaveInput {
  plan: RolloutPlan;
  /** The template's revision now. */
  revision: string;
  /** The state the last look left (undefined: the template's first revision). */
  previous: RolloutState | undefined;
  observed: ReadonlyMap<string, Observed>;
  now: number;
}

export interface WaveResult {
  state: RolloutState;
  /** When to look again: a soak ends or a deadline passes (undefined: only a report or a change moves it). */
  recheckAfterMs?: number;
}

const FINAL = new Set(["Succeeded", "Failed"]);
const iso = (ms: number) => new Date(ms).toISOString();

export function planWaves(input: WaveInput): WaveResult {
  const { plan, revision, now } = input;
  const order = plan.groups.flatMap((g) => g.clusters);
  const prev = input.previous;
  // The template's first revision: nothing ran before, so there is nothing to protect.
  if (prev === undefined) {
    return { state: { revision, stableRevision: revision, phase: "Succeeded", clusters: order.map((name) => ({ name, revision, phase: "Succeeded", since: iso(now) })) } };
  }
  let state: RolloutState;
  if (prev.revision !== revision) {
    // A new revision: a new rollout from the first group; every cluster keeps what it runs until its
    // turn. A cluster already told this revision has nothing to wait for: at the stable revision
    // (the template went back to the one a rollback restored) it has succeeded, one that failed
    // there is judged again, and at another (one still rolling out) it keeps its place, or is
    // judged from now on.
    const stable = prev.phase === "Succeeded" ? prev.revision : prev.stableRevision;
    const byName = new Map(prev.clusters.map((c) => [c.name, c]));
    const entry = (name: string): ClusterRollout => {
      const was = byName.get(name);
      const told = was?.revision ?? stable;
      if (told !== revision) return { name, revision: told, phase: "Waiting", since: iso(now) };
      if (was?.phase === "Failed" || (revision !== stable && (was === undefined || was.phase === "Waiting"))) return { name, revision, phase: "Updating", since: iso(now), updatedAt: iso(now) };
      if (was !== undefined && was.phase !== "Waiting") return was;
      return { name, revision, phase: "Succeeded", since: iso(now) };
    };
    state = { revision, stableRevision: stable, phase: "Progressing", clusters: order.map(entry) };
  } else {
    const byName = new Map(prev.clusters.map((c) => [c.name, c]));
    const rollingBack = prev.phase === "RollingBack" || prev.phase === "RolledBack";
    // Clusters gone are dropped; a cluster that joins runs the stable revision at once (a scheduling
    // change is no rollout), and is rolled forward in its group's turn, or is done when the rollout is.
    const joined = (name: string): ClusterRollout =>
      prev.phase === "Succeeded" ? { name, revision, phase: "Succeeded", since: iso(now) } : { name, revision: prev.stableRevision, phase: rollingBack ? "Succeeded" : "Waiting", since: iso(now) };
    state = { ...prev, clusters: order.map((name) => byName.get(name) ?? joined(name)) };
  }
  advance(state, plan, input.observed, now);
  if (state.phase === "Progressing" || state.phase === "WaitingForApproval" || (state.phase === "Paused" && state.paused === true)) forward(state, plan, input.observed, now);
  if (state.phase === "RollingBack") backward(state, plan, input.observed, now);
  const next = pending(state, plan, now);
  return { state, ...(next === Infinity ? {} : { recheckAfterMs: Math.max(1, next) }) };
}

// Each cluster's phase from what it reports: a failure or health counts only at the revision it was told.
function advance(state: RolloutState, plan: RolloutPlan, observed: ReadonlyMap<string, Observed>, now: number): void {
  for (const [i, c] of state.clusters.entries()) {
    if (c.phase !== "Updating" && c.phase !== "Soaking") continue;
    const o = observed.get(c.name);
    const runs = o !== undefined && o.revision === c.revision && o.healthy;
    let next: ClusterRollout = c;
    if (c.phase === "Updating") {
      if (o?.failed !== undefined && o.revision === c.revision) next = { ...c, phase: "Failed", since: iso(now), message: `UpdateFailed: ${o.failed}` };
      else if (runs) next = { ...c, phase: "Soaking", since: iso(now) };
      else if (now - Date.parse(c.updatedAt ?? c.since) >= plan.progressDeadlineMs) next = { ...c, phase: "Failed", since: iso(now), message: `not healthy at revision ${c.revision} within the progress deadline (${plan.progressDeadlineMs / 1000}s)` };
    } else if (!runs) {
      next = { ...c, phase: "Updating", since: iso(now) };
    }
    if (next.phase === "Soaking" && now - Date.parse(next.since) >= plan.minSuccessMs) next = { ...next, phase: "Succeeded", since: iso(now) };
    state.clusters[i] = next;
  }
}

// When the next soak ends or deadline passes.
function pending(state: RolloutState, plan: RolloutPlan, now: number): number {
  let next = Infinity;
  for (const c of state.clusters) {
    if (c.phase === "Soaking") next = Math.min(next, Date.parse(c.since) + plan.minSuccessMs - now);
    if (c.phase === "Updating") next = Math.min(next, Date.parse(c.updatedAt ?? c.since) + plan.progressDeadlineMs - now);
  }
  return next;
}

const approved = (state: RolloutState, gate: string) => (state.approvals ?? []).includes(gate);

// Rolling forward: failures first (pause or roll back), then start clusters of the first group not done.
function forward(state: RolloutState, plan: RolloutPlan, observed: ReadonlyMap<string, Observed>, now: number): void {
  const failed = state.clusters.filter((c) => c.phase === "Failed" && c.revision === state.revision);
  if (failed.length - (state.acceptedFailures ?? 0) > plan.maxFailures) {
    const names = failed.map((c) => c.name).join(", ");
    const why = `${failed.length} cluster${failed.length === 1 ? "" : "s"} failed at revision ${state.revision} (at most ${plan.maxFailures} tolerated): ${names}`;
    if (plan.onFailure === "Rollback") {
      state.phase = "RollingBack";
      state.message = `${why}; rolling back to ${state.stableRevision}`;
      backward(state, plan, observed, now);
    } else {
      state.phase = "Paused";
      state.message = `${why}; paused: flotillactl rollout resume to go on, or undo to roll back`;
    }
    return;
  }
  if (state.paused === true) {
    state.phase = "Paused";
    state.message = "paused by a user: flotillactl rollout resume";
    return;
  }
  state.phase = "Progressing";
  delete state.message;
  delete state.waitingFor;
  const byName = new Map(state.clusters.map((c, i) => [c.name, i]));
  const member = (name: string) => state.clusters[byName.get(name) as number] as ClusterRollout;
  for (const [gi, g] of plan.groups.entries()) {
    const members = g.clusters.map(member);
    const done = members.every((c) => c.revision === state.revision && FINAL.has(c.phase));
    if (done) {
      if (g.approval === "AfterGroup" && gi < plan.groups.length - 1 && !approved(state, `AfterGroup/${g.name}`)) return waitFor(state, `AfterGroup/${g.name}`, `group ${g.name} is done: approve it to go on (flotillactl rollout approve)`);
      continue;
    }
    const started = members.some((c) => c.revision === state.revision);
    if (g.approval === "BeforeGroup" && !started && !approved(state, `BeforeGroup/${g.name}`)) return waitFor(state, `BeforeGroup/${g.name}`, `group ${g.name} waits for approval to start (flotillactl rollout approve)`);
    start(state, g, members, byName, plan, observed, now, state.revision);
    return;
  }
  state.phase = "Succeeded";
  if (!state.clusters.some((c) => c.phase === "Failed")) state.stableRevision = state.revision;
  delete state.acceptedFailures;
}

function waitFor(state: RolloutState, gate: string, message: string): void {
  state.phase = "WaitingForApproval";
  state.waitingFor = gate;
  state.message = message;
}

// Starts the group's waiting clusters on `to`, within its concurrency and the fleet's maxUnavailable.
function start(state: RolloutState, g: PlannedGroup, members: ClusterRollout[], byName: ReadonlyMap<string, number>, plan: RolloutPlan, observed: ReadonlyMap<string, Observed>, now: number, to: string): void {
  let room = g.maxConcurrency - members.filter((c) => c.revision === to && (c.phase === "Updating" || c.phase === "Soaking")).length;
  let unavailable = state.clusters.filter((c) => c.phase === "Updating" || observed.get(c.name)?.healthy === false).length;
  for (const c of members) {
    if (room <= 0 || unavailable >= plan.maxUnavailable) return;
    if (c.revision === to) continue;
    state.clusters[byName.get(c.name) as number] = { name: c.name, revision: to, phase: "Updating", since: iso(now), updatedAt: iso(now) };
    room--;
    unavailable++;
  }
}

// Rolling back: every cluster that runs another revision than the stable one goes back to it, the
// failed ones first (all at once: they are broken already), then the groups in reverse order.
function backward(state: RolloutState, plan: RolloutPlan, observed: ReadonlyMap<string, Observed>, now: number): void {
  const to = state.stableRevision;
  const byName = new Map(state.clusters.map((c, i) => [c.name, i]));
  const failedBack = state.clusters.filter((c) => c.revision === to && c.phase === "Failed");
  if (failedBack.length > 0) {
    state.phase = "Paused";
    state.message = `the rollback to ${to} failed on ${failedBack.map((c) => c.name).join(", ")}: paused`;
    return;
  }
  // A user's pause holds a rollback too: those in flight go on, nobody new starts.
  if (state.paused === true) return;
  const broken = state.clusters.filter((c) => c.revision !== to && c.phase === "Failed");
  if (broken.length > 0) start(state, { name: "failed", clusters: broken.map((c) => c.name), maxConcurrency: broken.length, approval: "None" }, broken, byName, { ...plan, maxUnavailable: Infinity }, observed, now, to);
  for (const g of [...plan.groups].reverse()) {
    const members = g.clusters.map((n) => state.clusters[byName.get(n) as number] as ClusterRollout);
    if (members.every((c) => c.revision === to && (FINAL.has(c.phase) || c.phase === "Waiting"))) continue;
    start(state, g, members, byName, { ...plan, maxUnavailable: Infinity }, observed, now, to);
    return;
  }
  if (state.clusters.every((c) => c.revision === to && (FINAL.has(c.phase) || c.phase === "Waiting"))) {
    state.phase = "RolledBack";
    state.message = `rolled back to ${to}: revision ${state.revision} failed`;
  }
}
