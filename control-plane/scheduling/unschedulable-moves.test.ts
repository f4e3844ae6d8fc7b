import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AggregatedStatusItem, ReplicaMove, ReplicaSchedulingStrategy, TargetCluster } from "../../shared/api/types.ts";
import { holdMoved, type MoveInput, movesMessage, movesReplicas, movesSignal, planMoves } from "./unschedulable-moves.ts";

const MIN = 60_000;
const T0 = Date.parse("2026-11-24T10:00:00Z");
const at = (ms: number) => new Date(ms).toISOString();
const DYNAMIC: ReplicaSchedulingStrategy = { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { dynamicWeight: "AvailableReplicas" } };
const AGGREGATED: ReplicaSchedulingStrategy = { replicaSchedulingType: "Divided", replicaDivisionPreference: "Aggregated" };
const STATIC: ReplicaSchedulingStrategy = { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { staticWeightList: [{ targetCluster: { clusterNames: ["a"] }, weight: 1 }] } };

const stuck = (clusterName: string, n: number, sinceMs: number): AggregatedStatusItem => ({ clusterName, applied: true, health: "Progressing", unschedulableReplicas: n, unschedulableSince: at(sinceMs) });
const running = (clusterName: string, availableReplicas: number): AggregatedStatusItem => ({ clusterName, applied: true, health: "Healthy", status: { availableReplicas } });
const move = (fromCluster: string, replicas: number, had: number, createdMs: number, released?: boolean): ReplicaMove => ({
  fromCluster,
  replicas,
  had,
  keep: had - replicas,
  reason: "Unschedulable",
  creationTimestamp: at(createdMs),
  ...(released ? { released } : {}),
});
const targets = (o: Record<string, number>): TargetCluster[] => Object.entries(o).map(([name, replicas]) => ({ name, replicas }));

describe("movesReplicas: only division by room moves replicas", () => {
  const table: [string, ReplicaSchedulingStrategy | undefined, boolean][] = [
    ["dynamic weights", DYNAMIC, true],
    ["Aggregated", AGGREGATED, true],
    ["static weights", STATIC, false],
    ["static weights with KubeFed's rebalance: true", { ...STATIC, rebalance: true }, true],
    ["equal weights with rebalance: true", { replicaSchedulingType: "Divided", rebalance: true }, true],
    ["Duplicated with rebalance: true (nothing to divide)", { replicaSchedulingType: "Duplicated", rebalance: true }, false],
    ["Divided without a preference", { replicaSchedulingType: "Divided" }, false],
    ["Duplicated", { replicaSchedulingType: "Duplicated" }, false],
    ["no strategy", undefined, false],
  ];
  for (const [name, strategy, want] of table) it(name, () => assert.equal(movesReplicas(strategy), want));
});

describe("planMoves", () => {
  const base: MoveInput = { strategy: DYNAMIC, current: targets({ a: 3, b: 3 }), moves: [], status: [], now: T0, thresholdMs: 5 * MIN, freeNow: () => undefined };
  const free = (o: Record<string, number>) => (c: string) => o[c];
  const table: { name: string; input: Partial<MoveInput>; moves: ReplicaMove[]; caps: Record<string, number>; recheck?: number }[] = [
    { name: "nothing Unschedulable: no move, nothing to look at again", input: {}, moves: [], caps: {} },
    {
      name: "Unschedulable past the threshold: those replicas move, the cluster keeps the rest",
      input: { status: [running("a", 3), stuck("b", 2, T0 - 5 * MIN)] },
      moves: [move("b", 2, 3, T0)],
      caps: { b: 1 },
      recheck: 5 * MIN,
    },
    {
      name: "not yet past the threshold: look again when it is",
      input: { status: [stuck("b", 2, T0 - 4 * MIN)] },
      moves: [],
      caps: {},
      recheck: MIN,
    },
    {
      name: "more Unschedulable pods than the cluster's share (a stale report): at most its share moves",
      input: { status: [stuck("b", 9, T0 - 10 * MIN)] },
      moves: [move("b", 3, 3, T0)],
      caps: { b: 0 },
      recheck: 5 * MIN,
    },
    {
      name: "a move in force is kept, and the cluster is not judged again meanwhile",
      input: { moves: [move("b", 1, 3, T0 - 2 * MIN)], status: [stuck("b", 1, T0 - 10 * MIN)] },
      moves: [move("b", 1, 3, T0 - 2 * MIN)],
      caps: { b: 2 },
      recheck: 3 * MIN,
    },
    {
      name: "a move expires one threshold after it was decided, when the cluster reported no room then",
      input: { moves: [move("b", 1, 3, T0 - 5 * MIN, true)] },
      moves: [],
      caps: {},
    },
    {
      name: "a move records the room the cluster's summary claimed",
      input: { status: [stuck("b", 2, T0 - 5 * MIN)], freeNow: free({ a: 1, b: 1 }) },
      moves: [{ ...move("b", 2, 3, T0), freeAtMove: 1 }],
      caps: { b: 1 },
      recheck: 5 * MIN,
    },
    {
      name: "past its window it lasts while the summary claims no more room than then (no flapping back)",
      input: { moves: [{ ...move("b", 1, 3, T0 - 60 * MIN, true), freeAtMove: 1 }], freeNow: free({ b: 1 }) },
      moves: [{ ...move("b", 1, 3, T0 - 60 * MIN, true), freeAtMove: 1 }],
      caps: { b: 2 },
      recheck: 5 * MIN,
    },
    {
      name: "past its window, more room reported: it expires",
      input: { moves: [{ ...move("b", 1, 3, T0 - 5 * MIN, true), freeAtMove: 1 }], freeNow: free({ b: 2 }) },
      moves: [],
      caps: {},
    },
    {
      name: "within its window it lasts even with more room reported",
      input: { moves: [{ ...move("b", 1, 3, T0 - 4 * MIN, true), freeAtMove: 1 }], freeNow: free({ b: 5 }) },
      moves: [{ ...move("b", 1, 3, T0 - 4 * MIN, true), freeAtMove: 1 }],
      caps: { b: 2 },
      recheck: MIN,
    },
    {
      name: "an entry not applied (a failed apply) moves nothing",
      input: { status: [{ ...stuck("b", 2, T0 - 10 * MIN), applied: false }] },
      moves: [],
      caps: {},
    },
    {
      name: "a time that is not a time moves nothing",
      input: { status: [{ ...stuck("b", 2, T0), unschedulableSince: "soon" }] },
      moves: [],
      caps: {},
    },
    {
      name: "a cluster no longer a target moves nothing",
      input: { current: targets({ a: 6 }), status: [stuck("b", 2, T0 - 10 * MIN)] },
      moves: [],
      caps: {},
    },
    { name: "static weights never move", input: { strategy: STATIC, status: [stuck("b", 2, T0 - 10 * MIN)] }, moves: [], caps: {} },
    { name: "threshold 0 turns moves off, and drops those recorded", input: { thresholdMs: 0, moves: [move("b", 1, 3, T0)], status: [stuck("b", 2, T0 - 10 * MIN)] }, moves: [], caps: {} },
    {
      name: "Aggregated moves too; moves are sorted by cluster",
      input: { strategy: AGGREGATED, current: targets({ c: 2, b: 4 }), status: [stuck("c", 1, T0 - 6 * MIN), stuck("b", 2, T0 - 6 * MIN)] },
      moves: [move("b", 2, 4, T0), move("c", 1, 2, T0)],
      caps: { b: 2, c: 1 },
      recheck: 5 * MIN,
    },
  ];
  for (const t of table) {
    it(t.name, () => {
      const plan = planMoves({ ...base, ...t.input });
      assert.deepEqual(plan.moves, t.moves);
      assert.deepEqual(Object.fromEntries(plan.caps), t.caps);
      assert.equal(plan.recheckAfterMs, t.recheck);
    });
  }
});

describe("holdMoved: add first, then remove", () => {
  const table: { name: string; scheduled: TargetCluster[]; unplaced?: number; moves: ReplicaMove[]; status: AggregatedStatusItem[]; targets: TargetCluster[]; kept: ReplicaMove[] }[] = [
    {
      name: "the replicas not yet Available elsewhere: the cluster keeps what it had",
      scheduled: targets({ a: 4, b: 2 }),
      moves: [move("b", 1, 3, T0)],
      status: [running("a", 3), stuck("b", 1, T0 - 10 * MIN)],
      targets: targets({ a: 4, b: 3 }),
      kept: [move("b", 1, 3, T0)],
    },
    {
      name: "Available elsewhere: released, the cluster goes down to its share",
      scheduled: targets({ a: 4, b: 2 }),
      moves: [move("b", 1, 3, T0)],
      status: [running("a", 4), stuck("b", 1, T0 - 10 * MIN)],
      targets: targets({ a: 4, b: 2 }),
      kept: [move("b", 1, 3, T0, true)],
    },
    {
      name: "released stays released when elsewhere flaps",
      scheduled: targets({ a: 4, b: 2 }),
      moves: [move("b", 1, 3, T0, true)],
      status: [running("a", 1)],
      targets: targets({ a: 4, b: 2 }),
      kept: [move("b", 1, 3, T0, true)],
    },
    {
      name: "every replica moved: the cluster stays a target at 0 while the move is in force (no Work is removed)",
      scheduled: targets({ a: 3 }),
      moves: [move("b", 3, 3, T0, true)],
      status: [running("a", 3)],
      targets: targets({ a: 3, b: 0 }),
      kept: [move("b", 3, 3, T0, true)],
    },
    {
      name: "every replica moved, not yet Available elsewhere: it keeps all it had",
      scheduled: targets({ a: 3 }),
      moves: [move("b", 3, 3, T0)],
      status: [running("a", 0)],
      targets: targets({ a: 3, b: 3 }),
      kept: [move("b", 3, 3, T0)],
    },
    {
      name: "the schedule gave the cluster what it had (no room reported anywhere): the move is dropped",
      scheduled: targets({ a: 3, b: 3 }),
      moves: [move("b", 1, 3, T0)],
      status: [],
      targets: targets({ a: 3, b: 3 }),
      kept: [],
    },
    {
      name: "replicas unplaced (no other cluster has room): the move is dropped, nothing goes down",
      scheduled: targets({ a: 3, b: 2 }),
      unplaced: 1,
      moves: [move("b", 1, 3, T0)],
      status: [running("a", 3)],
      targets: targets({ a: 3, b: 2 }),
      kept: [],
    },
  ];
  for (const t of table) {
    it(t.name, () => {
      const r = holdMoved(t.scheduled, t.unplaced ?? 0, t.moves, t.status);
      assert.deepEqual(r.targets, t.targets);
      assert.deepEqual(r.moves, t.kept);
    });
  }
});

describe("movesSignal", () => {
  it("is empty for a binding whose replicas never move", () => {
    assert.equal(movesSignal({ placement: { replicaScheduling: STATIC } }, [stuck("b", 1, T0)]), "");
  });
  it("changes with Unschedulable pods, not with other status", () => {
    const spec = { placement: { replicaScheduling: DYNAMIC } };
    const one = movesSignal(spec, [running("a", 3), stuck("b", 1, T0)]);
    assert.notEqual(one, movesSignal(spec, [running("a", 3), stuck("b", 2, T0)]));
    assert.equal(one, movesSignal(spec, [running("a", 2), stuck("b", 1, T0)]), "availability is not read while no move waits");
  });
  it("while a move waits, changes with availability too", () => {
    const spec = { placement: { replicaScheduling: DYNAMIC }, replicaMoves: [move("b", 1, 3, T0)] };
    assert.notEqual(movesSignal(spec, [running("a", 3)]), movesSignal(spec, [running("a", 4)]));
  });
});

it("movesMessage says what moved, from where, and what the cluster keeps", () => {
  assert.equal(movesMessage([]), undefined);
  const text = movesMessage([move("b", 1, 3, T0), move("c", 2, 2, T0, true)]) ?? "";
  assert.match(text, /1 of 3 replicas moved from b at 2026-11-24T10:00:00.000Z.*it keeps 3 until they run Available elsewhere, and takes no more than 2/);
  assert.match(text, /2 of 2 replicas moved from c .*they run elsewhere and it runs 0/);
});
