import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster, RolloutState, RolloutStrategy } from "../../shared/api/types.ts";
import { planOf, type RolloutPlan } from "./rollout-groups.ts";
import { type Observed, planWaves } from "./wave-plan.ts";

const T0 = Date.parse("2026-11-24T10:00:00Z");
const S = 1000;
const cluster = (name: string, labels: Record<string, string> = {}): Cluster => ({ apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name, labels }, spec: {} });
const three = [cluster("m1"), cluster("m2"), cluster("m3")];
const WAVES: RolloutStrategy = { groups: [{ name: "canary", clusterNames: ["m1"] }, { name: "main", clusterNames: ["m2", "m3"] }], minSuccessTime: "30s", progressDeadline: "5m" };

/** A fleet that runs what it is told, healthy unless told otherwise, driven through planWaves. */
class Fleet {
  plan: RolloutPlan;
  state: RolloutState | undefined;
  now = T0;
  revision = "A";
  /** Clusters whose pods never become Ready at a revision: "m1@B". */
  readonly sick = new Set<string>();
  /** Clusters whose apply fails at a revision. */
  readonly refusing = new Set<string>();
  recheck: number | undefined;
  constructor(strategy: RolloutStrategy, clusters: Cluster[] = three) {
    this.plan = planOf(strategy, clusters);
    this.look();
  }
  observed(): Map<string, Observed> {
    const m = new Map<string, Observed>();
    for (const c of this.state?.clusters ?? []) {
      const at = `${c.name}@${c.revision}`;
      m.set(c.name, { revision: c.revision, healthy: !this.sick.has(at) && !this.refusing.has(at), ...(this.refusing.has(at) ? { failed: "admission webhook denied" } : {}) });
    }
    return m;
  }
  look(): RolloutState {
    // Reports arrive at once: look again until the state holds (a told cluster reports, the next starts).
    for (let i = 0; i < 20; i++) {
      const before = JSON.stringify(this.state);
      const r = planWaves({ plan: this.plan, revision: this.revision, previous: this.state, observed: this.observed(), now: this.now });
      this.state = r.state;
      this.recheck = r.recheckAfterMs;
      if (JSON.stringify(this.state) === before) break;
    }
    return this.state as RolloutState;
  }
  after(ms: number): RolloutState {
    this.now += ms;
    return this.look();
  }
  /** "m1=B:Soaking m2=A:Waiting …" */
  get shown(): string {
    return (this.state?.clusters ?? []).map((c) => `${c.name}=${c.revision}:${c.phase}`).join(" ");
  }
}

describe("planWaves", () => {
  it("the template's first revision goes everywhere at once: nothing ran before", () => {
    const f = new Fleet(WAVES);
    assert.equal(f.shown, "m1=A:Succeeded m2=A:Succeeded m3=A:Succeeded");
    assert.equal(f.state?.phase, "Succeeded");
    assert.equal(f.state?.stableRevision, "A");
  });

  it("a good revision rolls through the groups in order, each waiting out minSuccessTime", () => {
    const f = new Fleet(WAVES);
    f.revision = "B";
    f.look();
    assert.equal(f.shown, "m1=B:Soaking m2=A:Waiting m3=A:Waiting", "the canary first; the others keep A");
    assert.equal(f.recheck, 30 * S, "look again when the soak ends");
    f.after(29 * S);
    assert.equal(f.shown, "m1=B:Soaking m2=A:Waiting m3=A:Waiting", "not before minSuccessTime");
    f.after(1 * S);
    assert.equal(f.shown, "m1=B:Succeeded m2=B:Soaking m3=B:Soaking");
    f.after(30 * S);
    assert.equal(f.shown, "m1=B:Succeeded m2=B:Succeeded m3=B:Succeeded");
    assert.equal(f.state?.phase, "Succeeded");
    assert.equal(f.state?.stableRevision, "B");
  });

  it("the template changed back after a rollback: every cluster runs that revision already, so it succeeds at once and nothing moves", () => {
    const f = new Fleet({ ...WAVES, onFailure: "Rollback" });
    f.revision = "B";
    f.sick.add("m1@B");
    f.look();
    f.after(5 * 60 * S);
    f.after(30 * S);
    assert.equal(f.state?.phase, "RolledBack");
    assert.equal(f.shown, "m1=A:Succeeded m2=A:Waiting m3=A:Waiting");
    f.revision = "A";
    f.look();
    assert.equal(f.state?.phase, "Succeeded");
    assert.equal(f.state?.stableRevision, "A");
    assert.equal(f.shown, "m1=A:Succeeded m2=A:Succeeded m3=A:Succeeded");
  });

  it("a new revision that some clusters were already told keeps them where they are", () => {
    const f = new Fleet({ ...WAVES, minSuccessTime: "0s", groups: [{ name: "canary", clusterNames: ["m1"] }, { name: "main", clusterNames: ["m2", "m3"], approval: "BeforeGroup" }] });
    f.revision = "B";
    f.look();
    assert.equal(f.shown, "m1=B:Succeeded m2=A:Waiting m3=A:Waiting");
    f.revision = "C";
    f.look();
    assert.equal(f.shown, "m1=C:Succeeded m2=A:Waiting m3=A:Waiting");
    f.revision = "B"; // back to the one m1 runs: m1 judged at it from now, the rest wait for their turn
    f.look();
    assert.equal(f.shown, "m1=B:Succeeded m2=A:Waiting m3=A:Waiting");
    assert.equal(f.state?.phase, "WaitingForApproval");
  });

  it("maxConcurrency bounds a group's clusters in flight", () => {
    const f = new Fleet({ ...WAVES, minSuccessTime: "0s", groups: [{ name: "all", clusterNames: ["m1", "m2", "m3"], maxConcurrency: 1 }] });
    f.revision = "B";
    f.sick.add("m1@B");
    f.look();
    assert.equal(f.shown, "m1=B:Updating m2=A:Waiting m3=A:Waiting");
    f.sick.delete("m1@B");
    f.after(S);
    assert.equal(f.shown, "m1=B:Succeeded m2=B:Succeeded m3=B:Succeeded", "one after another once each is healthy");
  });

  it("a percentage maxConcurrency rounds up, and maxUnavailable bounds the fleet", () => {
    const f = new Fleet({ groups: [{ name: "all", clusterNames: ["m1", "m2", "m3"], maxConcurrency: "50%" }], maxUnavailable: 1, progressDeadline: "5m" });
    assert.equal(f.plan.groups[0]?.maxConcurrency, 2);
    f.revision = "B";
    f.sick.add("m1@B");
    f.sick.add("m2@B");
    f.look();
    assert.equal(f.shown, "m1=B:Updating m2=A:Waiting m3=A:Waiting", "one unhealthy at a time although the group allows 2");
  });

  it("BeforeGroup waits for an approval to start the group", () => {
    const f = new Fleet({ ...WAVES, minSuccessTime: "0s", groups: [{ name: "canary", clusterNames: ["m1"] }, { name: "main", clusterNames: ["m2", "m3"], approval: "BeforeGroup" }] });
    f.revision = "B";
    f.after(S);
    assert.equal(f.shown, "m1=B:Succeeded m2=A:Waiting m3=A:Waiting");
    assert.equal(f.state?.phase, "WaitingForApproval");
    assert.match(f.state?.message ?? "", /group main waits for approval/);
    (f.state as RolloutState).approvals = ["BeforeGroup/main"];
    f.look();
    assert.equal(f.shown, "m1=B:Succeeded m2=B:Succeeded m3=B:Succeeded");
    assert.equal(f.state?.phase, "Succeeded");
  });

  it("AfterGroup waits for an approval after the group, before the next", () => {
    const f = new Fleet({ ...WAVES, minSuccessTime: "0s", groups: [{ name: "canary", clusterNames: ["m1"], approval: "AfterGroup" }, { name: "main", clusterNames: ["m2", "m3"] }] });
    f.revision = "B";
    f.look();
    assert.equal(f.state?.phase, "WaitingForApproval");
    assert.equal(f.shown, "m1=B:Succeeded m2=A:Waiting m3=A:Waiting");
    (f.state as RolloutState).approvals = ["AfterGroup/canary"];
    f.look();
    assert.equal(f.state?.phase, "Succeeded");
  });

  it("a bad revision fails in the canary past the deadline and pauses: the other groups never see it", () => {
    const f = new Fleet(WAVES);
    f.revision = "B";
    f.sick.add("m1@B");
    f.look();
    assert.equal(f.recheck, 5 * 60 * S, "look again at the deadline");
    f.after(5 * 60 * S);
    assert.equal(f.shown, "m1=B:Failed m2=A:Waiting m3=A:Waiting");
    assert.equal(f.state?.phase, "Paused");
    assert.match(f.state?.message ?? "", /1 cluster failed at revision B \(at most 0 tolerated\): m1/);
    f.after(60 * 60 * S);
    assert.equal(f.shown, "m1=B:Failed m2=A:Waiting m3=A:Waiting", "paused stays paused");
  });

  it("onFailure Rollback takes the reached clusters back to the stable revision", () => {
    const f = new Fleet({ ...WAVES, onFailure: "Rollback" });
    f.revision = "B";
    f.sick.add("m1@B");
    f.look();
    f.after(5 * 60 * S);
    assert.equal(f.state?.phase, "RollingBack");
    assert.equal(f.shown, "m1=A:Soaking m2=A:Waiting m3=A:Waiting");
    f.after(30 * S);
    assert.equal(f.state?.phase, "RolledBack");
    assert.equal(f.shown, "m1=A:Succeeded m2=A:Waiting m3=A:Waiting");
    assert.equal(f.state?.stableRevision, "A");
    assert.equal(f.state?.revision, "B", "the failed revision stays named");
  });

  it("a rollback goes failed clusters first, then the groups in reverse order", () => {
    const f = new Fleet({ groups: [{ name: "one", clusterNames: ["m1"] }, { name: "two", clusterNames: ["m2", "m3"], maxConcurrency: 1 }], maxFailures: 0, onFailure: "Rollback", progressDeadline: "1m" });
    f.revision = "B";
    f.sick.add("m3@B");
    f.look();
    assert.equal(f.shown, "m1=B:Succeeded m2=B:Succeeded m3=B:Updating");
    f.sick.add("m1@A");
    f.sick.add("m2@A");
    f.after(60 * S);
    // m3 failed: it goes back first, then group two (m2), and group one (m1) only once two is back.
    assert.equal(f.state?.phase, "RollingBack");
    assert.equal(f.shown, "m1=B:Succeeded m2=A:Updating m3=A:Succeeded");
    f.sick.delete("m2@A");
    f.look();
    assert.equal(f.shown, "m1=A:Updating m2=A:Succeeded m3=A:Succeeded");
    f.sick.delete("m1@A");
    f.look();
    assert.equal(f.shown, "m1=A:Succeeded m2=A:Succeeded m3=A:Succeeded");
    assert.equal(f.state?.phase, "RolledBack");
  });

  it("an apply that fails (UpdateFailed) fails the cluster at once", () => {
    const f = new Fleet(WAVES);
    f.revision = "B";
    f.refusing.add("m1@B");
    f.look();
    assert.equal(f.shown, "m1=B:Failed m2=A:Waiting m3=A:Waiting");
    assert.match(f.state?.clusters[0]?.message ?? "", /UpdateFailed: admission webhook denied/);
  });

  it("a report about another revision neither fails nor passes a cluster", () => {
    const plan = planOf(WAVES, three);
    const previous: RolloutState = { revision: "B", stableRevision: "A", phase: "Progressing", clusters: [{ name: "m1", revision: "B", phase: "Updating", since: new Date(T0).toISOString(), updatedAt: new Date(T0).toISOString() }, { name: "m2", revision: "A", phase: "Waiting", since: new Date(T0).toISOString() }, { name: "m3", revision: "A", phase: "Waiting", since: new Date(T0).toISOString() }] };
    const observed = new Map<string, Observed>([["m1", { revision: "A", healthy: true, failed: "old" }]]);
    assert.equal(planWaves({ plan, revision: "B", previous, observed, now: T0 + S }).state.clusters[0]?.phase, "Updating");
  });

  it("maxFailures tolerates failures: the rollout finishes, but the stable revision stays", () => {
    const f = new Fleet({ ...WAVES, minSuccessTime: "0s", maxFailures: 1 });
    f.revision = "B";
    f.refusing.add("m1@B");
    f.look();
    assert.equal(f.shown, "m1=B:Failed m2=B:Succeeded m3=B:Succeeded");
    assert.equal(f.state?.phase, "Succeeded");
    assert.equal(f.state?.stableRevision, "A", "B did not succeed everywhere");
  });

  it("a template changed mid-rollout starts again from the first group; clusters keep what they run until their turn", () => {
    const f = new Fleet(WAVES);
    f.revision = "B";
    f.look();
    f.after(30 * S);
    assert.equal(f.shown, "m1=B:Succeeded m2=B:Soaking m3=B:Soaking");
    f.revision = "C";
    f.look();
    assert.equal(f.shown, "m1=C:Soaking m2=B:Waiting m3=B:Waiting");
    assert.equal(f.state?.stableRevision, "A", "B never succeeded everywhere");
    f.after(30 * S);
    f.after(30 * S);
    assert.equal(f.shown, "m1=C:Succeeded m2=C:Succeeded m3=C:Succeeded");
    assert.equal(f.state?.stableRevision, "C");
  });

  it("a cluster that joins mid-rollout runs the stable revision at once and is rolled in its group's turn", () => {
    const f = new Fleet(WAVES);
    f.revision = "B";
    f.look();
    f.plan = planOf(WAVES, [...three, cluster("m4")]);
    f.look();
    assert.equal(f.shown, "m1=B:Soaking m2=A:Waiting m3=A:Waiting m4=A:Waiting", "m4 falls in the last group (rest)");
    f.after(30 * S);
    assert.equal(f.shown, "m1=B:Succeeded m2=B:Soaking m3=B:Soaking m4=A:Waiting");
    f.after(30 * S);
    assert.equal(f.shown, "m1=B:Succeeded m2=B:Succeeded m3=B:Succeeded m4=B:Soaking");
  });

  it("a cluster that joins after the rollout gets the revision at once", () => {
    const f = new Fleet(WAVES);
    f.plan = planOf(WAVES, [...three, cluster("m4")]);
    f.look();
    assert.equal(f.shown, "m1=A:Succeeded m2=A:Succeeded m3=A:Succeeded m4=A:Succeeded");
  });

  it("a cluster that leaves mid-rollout is dropped, and its failure no longer counts", () => {
    const f = new Fleet(WAVES);
    f.revision = "B";
    f.sick.add("m1@B");
    f.look();
    f.after(5 * 60 * S);
    assert.equal(f.state?.phase, "Paused");
    f.plan = planOf(WAVES, [cluster("m2"), cluster("m3")]);
    (f.state as RolloutState).phase = "Progressing";
    f.look();
    assert.equal(f.shown, "m2=B:Soaking m3=B:Soaking");
  });

  it("a user's pause starts nobody new; those in flight go on", () => {
    const f = new Fleet(WAVES);
    f.revision = "B";
    f.look();
    (f.state as RolloutState).paused = true;
    f.after(30 * S);
    assert.equal(f.state?.phase, "Paused");
    assert.equal(f.shown, "m1=B:Succeeded m2=A:Waiting m3=A:Waiting");
    (f.state as RolloutState).paused = false;
    (f.state as RolloutState).phase = "Progressing";
    f.look();
    assert.equal(f.shown, "m1=B:Succeeded m2=B:Soaking m3=B:Soaking");
  });

  it("is idempotent: the same input gives the same state (a new leader resumes where the last was)", () => {
    const f = new Fleet(WAVES);
    f.revision = "B";
    f.look();
    const again = planWaves({ plan: f.plan, revision: "B", previous: structuredClone(f.state), observed: f.observed(), now: f.now });
    assert.deepEqual(again.state, f.state);
  });
});
