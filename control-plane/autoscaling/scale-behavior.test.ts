import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { EffectiveScalingRules, HPAScalingPolicy } from "./federated-hpa-api.ts";
import { scaleDownRules, scaleUpRules } from "./federated-hpa-api.ts";
import type { ScaleHistory, TimedRecommendation } from "./scale-behavior.ts";
import { EMPTY_HISTORY, limitByRate, recordScale, scaleDownLimit, scaleUpLimit, stabilize } from "./scale-behavior.ts";

const NOW = 1_000_000_000;
const ago = (seconds: number) => NOW - seconds * 1000;
const rules = (policies: HPAScalingPolicy[], selectPolicy: EffectiveScalingRules["selectPolicy"] = "Max", window = 0): EffectiveScalingRules => ({
  stabilizationWindowSeconds: window, selectPolicy, policies,
});
const pods = (value: number, periodSeconds = 60): HPAScalingPolicy => ({ type: "Pods", value, periodSeconds });
const percent = (value: number, periodSeconds = 60): HPAScalingPolicy => ({ type: "Percent", value, periodSeconds });
const history = (up: [number, number][] = [], down: [number, number][] = []): ScaleHistory => ({
  recommendations: [],
  scaleUpEvents: up.map(([s, change]) => ({ at: ago(s), change })),
  scaleDownEvents: down.map(([s, change]) => ({ at: ago(s), change })),
});

describe("stabilize", () => {
  const up = scaleUpRules(undefined);
  const down = scaleDownRules(undefined);
  const recs = (...r: [number, number][]): TimedRecommendation[] => r.map(([s, replicas]) => ({ at: ago(s), replicas }));
  const cases: { name: string; history: TimedRecommendation[]; desired: number; current: number; up?: EffectiveScalingRules; want: number; reason: string }[] = [
    { name: "a scale-down waits for the highest recommendation of the last 300 s", history: recs([100, 8], [50, 6]), desired: 4, current: 8, want: 8, reason: "ScaleDownStabilized" },
    { name: "a recommendation exactly 300 s old has left the window", history: recs([300, 8], [50, 6]), desired: 4, current: 8, want: 6, reason: "ScaleDownStabilized" },
    { name: "without recent higher recommendations the scale-down goes through", history: recs([301, 9]), desired: 4, current: 8, want: 4, reason: "ScaleDownStabilized" },
    { name: "a scale-up is not stabilized by default (window 0 s)", history: recs([10, 3]), desired: 10, current: 5, want: 10, reason: "ScaleUpStabilized" },
    { name: "a scale-up window holds to the lowest recent recommendation", history: recs([30, 6], [10, 9]), desired: 10, current: 5, up: rules([], "Max", 60), want: 6, reason: "ScaleUpStabilized" },
    { name: "a scale-up window's low recommendation below the current count keeps the current count", history: recs([30, 3]), desired: 10, current: 5, up: rules([], "Max", 60), want: 5, reason: "ScaleUpStabilized" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = stabilize(c.history, c.desired, c.current, c.up ?? up, down, NOW);
      assert.equal(got.replicas, c.want);
      assert.equal(got.reason, c.reason);
    });
  }

  it("keeps the new recommendation and those a window still covers", () => {
    const got = stabilize(recs([400, 9], [299, 7]), 4, 8, up, down, NOW);
    assert.deepEqual(got.recommendations, [{ at: ago(299), replicas: 7 }, { at: NOW, replicas: 4 }]);
  });
});

describe("scaleUpLimit and scaleDownLimit", () => {
  const cases: { name: string; limit: typeof scaleUpLimit; current: number; rules: EffectiveScalingRules; history?: ScaleHistory; want: number }[] = [
    { name: "default scale-up from 2: the larger of +4 pods and +100 % is 6", limit: scaleUpLimit, current: 2, rules: scaleUpRules(undefined), want: 6 },
    { name: "default scale-up from 10: the larger of +4 pods and +100 % is 20", limit: scaleUpLimit, current: 10, rules: scaleUpRules(undefined), want: 20 },
    { name: "a scale-up 10 s ago counts: from 12 after +6, the period started at 6, so 12", limit: scaleUpLimit, current: 12, rules: scaleUpRules(undefined), history: history([[10, 6]]), want: 12 },
    { name: "a scale-up 16 s ago has left the 15 s period: from 12, 24", limit: scaleUpLimit, current: 12, rules: scaleUpRules(undefined), history: history([[16, 6]]), want: 24 },
    { name: "a scale-down within the period raises the period's start: from 6 after -4, +4 pods is 14", limit: scaleUpLimit, current: 6, rules: rules([pods(4)]), history: history([], [[5, 4]]), want: 14 },
    { name: "selectPolicy Min scaling up takes the smaller: +4 pods over +100 % from 10 is 14", limit: scaleUpLimit, current: 10, rules: rules([pods(4), percent(100)], "Min"), want: 14 },
    { name: "a percent scale-up rounds up: +10 % of 5 is 6", limit: scaleUpLimit, current: 5, rules: rules([percent(10)]), want: 6 },
    { name: "Disabled scaling up allows no change", limit: scaleUpLimit, current: 5, rules: rules([pods(4)], "Disabled"), want: 5 },
    { name: "default scale-down allows -100 %: 0", limit: scaleDownLimit, current: 10, rules: scaleDownRules(undefined), want: 0 },
    { name: "a Pods scale-down policy: -2 from 10 is 8", limit: scaleDownLimit, current: 10, rules: rules([pods(2)]), want: 8 },
    { name: "a percent scale-down rounds toward zero: -50 % of 7 is 3", limit: scaleDownLimit, current: 7, rules: rules([percent(50)]), want: 3 },
    { name: "selectPolicy Max scaling down takes the larger change: -5 pods over -10 % from 20 is 15", limit: scaleDownLimit, current: 20, rules: rules([pods(5), percent(10)]), want: 15 },
    { name: "selectPolicy Min scaling down takes the smaller change: 18", limit: scaleDownLimit, current: 20, rules: rules([pods(5), percent(10)], "Min"), want: 18 },
    { name: "a scale-down within the period lowers what is left: from 8 after -2, -2 pods allows 8", limit: scaleDownLimit, current: 8, rules: rules([pods(2)]), history: history([], [[30, 2]]), want: 8 },
    { name: "Disabled scaling down allows no change", limit: scaleDownLimit, current: 10, rules: rules([percent(100)], "Disabled"), want: 10 },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(c.limit(c.current, c.history ?? EMPTY_HISTORY, c.rules, NOW), c.want));
  }
});

describe("limitByRate", () => {
  const base = { minReplicas: 1, maxReplicas: 10, up: scaleUpRules(undefined), down: scaleDownRules(undefined), history: EMPTY_HISTORY, now: NOW };
  const cases: { name: string; desired: number; current: number; over?: Partial<typeof base>; want: number; reason: string }[] = [
    { name: "within bounds and rates", desired: 7, current: 5, want: 7, reason: "DesiredWithinRange" },
    { name: "above maxReplicas, the rate allowing more", desired: 15, current: 8, want: 10, reason: "TooManyReplicas" },
    { name: "the rate tighter than maxReplicas", desired: 9, current: 2, want: 6, reason: "ScaleUpLimit" },
    { name: "below minReplicas", desired: 1, current: 5, over: { minReplicas: 3 }, want: 3, reason: "TooFewReplicas" },
    { name: "the scale-down rate tighter than minReplicas", desired: 1, current: 10, over: { down: rules([pods(2)]) }, want: 8, reason: "ScaleDownLimit" },
    { name: "scale-down Disabled holds the count", desired: 2, current: 10, over: { down: rules([percent(100)], "Disabled") }, want: 10, reason: "ScaleDownLimit" },
    { name: "an earlier scale-up that used the period holds the count (the limit never goes below it)", desired: 12, current: 8, over: { up: rules([pods(1)]), history: history([[5, 4]]) }, want: 8, reason: "ScaleUpLimit" },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.want}, ${c.reason}`, () => {
      const got = limitByRate({ ...base, ...c.over, desired: c.desired, current: c.current });
      assert.deepEqual([got.replicas, got.reason], [c.want, c.reason]);
    });
  }
});

describe("recordScale", () => {
  it("records the change in its direction and drops events older than every policy's period", () => {
    const before = history([[20, 3], [5, 2]], [[70, 1]]);
    const got = recordScale(before, 6, 9, rules([pods(4, 15)]), rules([pods(1, 60)]), NOW);
    assert.deepEqual(got.scaleUpEvents, [{ at: ago(20), change: 3 }, { at: ago(5), change: 2 }, { at: NOW, change: 3 }]);
    assert.deepEqual(got.scaleDownEvents, []);
    const down = recordScale(got, 9, 4, rules([pods(4, 15)]), rules([pods(1, 60)]), NOW + 50_000);
    assert.deepEqual(down.scaleUpEvents, [{ at: ago(5), change: 2 }, { at: NOW, change: 3 }]);
    assert.deepEqual(down.scaleDownEvents, [{ at: NOW + 50_000, change: 5 }]);
  });
});
