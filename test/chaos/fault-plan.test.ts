import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ETCD_SNAPSHOT_AGE_MS, FAULT_KINDS, FIRST_FAULT_MS, fromPlanned, GAP_MS, HPA_HOLD_MS, HPA_REPLICAS, planFaults, planHpas, planUserWrites, POLICY_NAMES, USER_WRITE_GAP_MS } from "./fault-plan.ts";
import { seededRandom } from "./random.ts";

describe("planFaults", () => {
  const members = ["member1", "member2", "member3"];
  const plan = (seed: number, durationMs: number) => planFaults(seededRandom(seed), { durationMs, members, failureThresholdMs: 5_000 });

  it("is the same plan for the same seed", () => {
    assert.deepEqual(plan(9, 600_000), plan(9, 600_000));
    assert.notDeepEqual(plan(9, 600_000), plan(10, 600_000));
  });

  for (const seed of [1, 2, 3, 4, 5]) {
    it(`seed ${seed}: a 130-second run meets every kind; faults are spaced and end within the run`, () => {
      const faults = plan(seed, 130_000);
      assert.deepEqual(new Set(faults.map((f) => f.kind)), new Set(FAULT_KINDS), JSON.stringify(faults));
      let freeAt = 0;
      for (const f of faults) {
        assert.ok(f.atMs >= FIRST_FAULT_MS && f.atMs >= freeAt, `fault at ${f.atMs} starts after the last one ended plus a gap`);
        assert.ok(f.atMs + f.downMs <= 130_000, "over before the run ends");
        if (f.kind === "stop-agent") assert.ok(f.downMs > 5_000, "a stopped agent stays stopped past the failure threshold");
        assert.equal(f.member !== undefined, ["kill-agent", "stop-agent", "kill-member-apiserver", "delete-member-namespace", "register-again"].includes(f.kind));
        if (f.kind === "register-again") assert.ok(f.downMs >= 5_000 && f.downMs <= 8_000, "the admin sets the labels again a few seconds later");
        if (f.member !== undefined) assert.ok(members.includes(f.member));
        assert.equal(f.policy !== undefined, f.kind === "recreate-policy");
        if (f.policy !== undefined) assert.ok(POLICY_NAMES.includes(f.policy), f.policy);
        if (f.kind === "recreate-policy") assert.ok(f.downMs >= 2_000 && f.downMs <= 5_000, "created again a few seconds later");
        assert.equal(f.pick !== undefined, f.kind === "delete-binding");
        if (f.pick !== undefined) assert.ok(f.pick >= 0 && f.pick < 1);
        freeAt = f.atMs + f.downMs + GAP_MS[0];
      }
    });
  }

  it("--etcd-restore adds a restore from a snapshot a minute old to every round; without it there is none", () => {
    const withRestore = planFaults(seededRandom(3), { durationMs: 600_000, members, failureThresholdMs: 5_000, etcdRestore: true });
    const restores = withRestore.filter((f) => f.kind === "restore-control-etcd");
    assert.ok(restores.length >= 2, `${restores.length} restores`);
    assert.ok(restores.every((f) => f.downMs === ETCD_SNAPSHOT_AGE_MS && f.atMs + f.downMs <= 600_000));
    assert.equal(plan(3, 600_000).filter((f) => f.kind === "restore-control-etcd").length, 0);
  });

  it("the policies it deletes are the chaos run's: plain-g0, deploy-g0, … deploy-g2 (the label group's too)", () => {
    assert.deepEqual(POLICY_NAMES, ["plain-g0", "deploy-g0", "plain-g1", "deploy-g1", "plain-g2", "deploy-g2"]);
  });

  it("seed 158 (the 100-second run of npm test, whose fault seed is 158 ^ 0x5eed) meets every kind by 98 s", () => {
    const faults = plan(158 ^ 0x5eed, 100_000);
    assert.deepEqual(new Set(faults.map((f) => f.kind)), new Set(FAULT_KINDS));
    assert.ok(faults.every((f) => f.atMs + f.downMs <= 98_000));
  });

  it("a 10-minute run has about one fault every 10 seconds, each kind several times", () => {
    const faults = plan(1, 600_000);
    assert.ok(faults.length >= 40 && faults.length <= 75, `${faults.length} faults`);
    for (const k of FAULT_KINDS) assert.ok(faults.filter((f) => f.kind === k).length >= 3, k);
  });
});

describe("planUserWrites", () => {
  const members = ["member1", "member2", "member3"];
  it("copies and re-creations in turn, spaced, within the run, on the run's members; the same for the same seed", () => {
    const writes = planUserWrites(seededRandom(1), { durationMs: 100_000, members });
    assert.deepEqual(writes, planUserWrites(seededRandom(1), { durationMs: 100_000, members }));
    assert.ok(writes.length >= 4, `${writes.length} writes in 100 s`);
    assert.deepEqual(writes.slice(0, 2).map((w) => w.how), ["copy", "recreate"]);
    for (const [i, w] of writes.entries()) {
      assert.ok(w.atMs >= FIRST_FAULT_MS && w.atMs < 100_000 - USER_WRITE_GAP_MS[0]);
      assert.ok(members.includes(w.member) && w.pick >= 0 && w.pick < 1);
      const next = writes[i + 1];
      if (next !== undefined) assert.ok(next.atMs - w.atMs >= USER_WRITE_GAP_MS[0]);
    }
  });
});

describe("planHpas", () => {
  const members = ["member1", "member2", "member3"];
  for (const [seed, durationMs] of [[1, 100_000], [7, 600_000], [3, 120_000]] as const) {
    it(`seed ${seed}, ${durationMs / 1000} s: one HPA at a time, rescaled to another value and its template's replicas changed while it holds, the last kept to the end`, () => {
      const plan = planHpas(seededRandom(seed), { durationMs, members });
      assert.deepEqual(plan, planHpas(seededRandom(seed), { durationMs, members }));
      assert.ok(plan.length >= 2, `${plan.length} HPAs`);
      assert.ok(plan.some((p) => p.endMs !== undefined), "some HPA is deleted by the user");
      assert.ok(plan.slice(0, -1).every((p) => p.endMs !== undefined), "only the last may be kept to the end");
      let freeAt = FIRST_FAULT_MS;
      for (const p of plan) {
        assert.ok(p.atMs >= freeAt, "starts after the last one ended");
        assert.ok(members.includes(p.member) && p.pick >= 0 && p.pick < 1);
        for (const r of [p.replicas, p.rescaleTo]) assert.ok(r >= HPA_REPLICAS[0] && r <= HPA_REPLICAS[1] && r > 12, "above any template's replicas: never the template's division");
        assert.notEqual(p.rescaleTo, p.replicas);
        assert.ok(p.templateReplicas >= 6 && p.templateReplicas <= 12);
        const end = p.endMs ?? durationMs;
        assert.ok(p.atMs + p.rescaleAfterMs < end && p.atMs + p.updateAfterMs < end, "the rescale and the template's update come while it holds");
        if (p.endMs !== undefined) assert.ok(p.endMs - p.atMs >= HPA_HOLD_MS[0] && p.endMs - p.atMs <= HPA_HOLD_MS[1]);
        freeAt = end;
      }
    });
  }
});

describe("fromPlanned", () => {
  const m = [{ name: "member1" }, { name: "member2" }, { name: "member3" }];
  for (const [planned, want] of [
    ["member1", ["member1", "member2", "member3"]],
    ["member3", ["member3", "member1", "member2"]],
    ["gone", ["member1", "member2", "member3"]],
    [undefined, ["member1", "member2", "member3"]],
  ] as const) {
    it(`planned ${planned}: ${want.join(", ")}`, () => assert.deepEqual(fromPlanned(m, planned).map((x) => x.name), want));
  }
});
