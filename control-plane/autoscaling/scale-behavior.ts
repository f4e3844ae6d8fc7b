// autoscaling/v2 `behavior` as kube-controller-manager applies it: stabilization windows over
// the recent recommendations, then the scaling policies' rate limits over the recent scale
// events. Both histories are inputs and outputs here (the controller keeps them in memory);
// times are milliseconds since the epoch, given, never read.
import type { EffectiveScalingRules } from "./federated-hpa-api.ts";

/** A recommendation the metrics made (before stabilization), and when. */
export interface TimedRecommendation {
  at: number;
  replicas: number;
}

/** A change of the target's replicas the autoscaler made, and when; `change` is positive. */
export interface TimedScaleEvent {
  at: number;
  change: number;
}

/** What the autoscaler remembers between runs. */
export interface ScaleHistory {
  recommendations: TimedRecommendation[];
  scaleUpEvents: TimedScaleEvent[];
  scaleDownEvents: TimedScaleEvent[];
}

export const EMPTY_HISTORY: ScaleHistory = { recommendations: [], scaleUpEvents: [], scaleDownEvents: [] };

/** A decision with the condition reason and message that explain it. */
export interface Explained {
  replicas: number;
  reason: string;
  message: string;
}

const secondsAgo = (now: number, seconds: number) => now - seconds * 1000;

/**
 * The stabilized recommendation: the current count moved no further up than the lowest
 * recommendation within the scale-up window, and no further down than the highest within the
 * scale-down window (the new recommendation counts in both). Returns the recommendations to keep:
 * the new one, and the older ones a window still covers.
 */
export function stabilize(
  history: TimedRecommendation[], desired: number, current: number, up: EffectiveScalingRules, down: EffectiveScalingRules, now: number,
): Explained & { recommendations: TimedRecommendation[] } {
  const upCutoff = secondsAgo(now, up.stabilizationWindowSeconds);
  const downCutoff = secondsAgo(now, down.stabilizationWindowSeconds);
  let upLimit = desired;
  let downLimit = desired;
  for (const r of history) {
    if (r.at > upCutoff) upLimit = Math.min(upLimit, r.replicas);
    if (r.at > downCutoff) downLimit = Math.max(downLimit, r.replicas);
  }
  const replicas = Math.min(Math.max(current, upLimit), downLimit);
  const keepAfter = Math.min(upCutoff, downCutoff);
  const recommendations = [...history.filter((r) => r.at > keepAfter), { at: now, replicas: desired }];
  return desired >= current
    ? { replicas, recommendations, reason: "ScaleUpStabilized", message: "recent recommendations were lower than current one, applying the lowest recent recommendation" }
    : { replicas, recommendations, reason: "ScaleDownStabilized", message: "recent recommendations were higher than current one, applying the highest recent recommendation" };
}

/** The replicas the events within the last `periodSeconds` changed the target by. */
function changedWithin(events: TimedScaleEvent[], periodSeconds: number, now: number): number {
  const cutoff = secondsAgo(now, periodSeconds);
  return events.reduce((sum, e) => (e.at > cutoff ? sum + e.change : sum), 0);
}

/** The count each policy's period started from: the current one without the period's changes. */
function periodStart(current: number, history: ScaleHistory, periodSeconds: number, now: number): number {
  return current - changedWithin(history.scaleUpEvents, periodSeconds, now) + changedWithin(history.scaleDownEvents, periodSeconds, now);
}

/**
 * The most replicas the scale-up policies allow now: per policy, its period's start plus the
 * pods or percent (rounded up) it allows; the largest (Max) or smallest (Min) of them; the current
 * count when Disabled.
 */
export function scaleUpLimit(current: number, history: ScaleHistory, rules: EffectiveScalingRules, now: number): number {
  if (rules.selectPolicy === "Disabled") return current;
  const limits = rules.policies.map((p) => {
    const start = periodStart(current, history, p.periodSeconds, now);
    return p.type === "Pods" ? start + p.value : Math.ceil(start * (1 + p.value / 100));
  });
  if (limits.length === 0) return current;
  return rules.selectPolicy === "Min" ? Math.min(...limits) : Math.max(...limits);
}

/**
 * The fewest replicas the scale-down policies allow now: per policy, its period's start minus the
 * pods or percent (rounded toward zero) it allows; the smallest (Max: the largest change) or
 * largest (Min) of them; the current count when Disabled.
 */
export function scaleDownLimit(current: number, history: ScaleHistory, rules: EffectiveScalingRules, now: number): number {
  if (rules.selectPolicy === "Disabled") return current;
  const limits = rules.policies.map((p) => {
    const start = periodStart(current, history, p.periodSeconds, now);
    return p.type === "Pods" ? start - p.value : Math.trunc(start * (1 - p.value / 100));
  });
  if (limits.length === 0) return current;
  return rules.selectPolicy === "Min" ? Math.max(...limits) : Math.min(...limits);
}

/** The bounds and rates a stabilized recommendation must keep. */
export interface RateLimitInput {
  desired: number;
  current: number;
  minReplicas: number;
  maxReplicas: number;
  up: EffectiveScalingRules;
  down: EffectiveScalingRules;
  history: ScaleHistory;
  now: number;
}

/**
 * The recommendation held to [minReplicas, maxReplicas] and to the policies' rates, with the
 * ScalingLimited reason: TooManyReplicas/ScaleUpLimit, TooFewReplicas/ScaleDownLimit (whichever
 * bound is the tighter one in the recommendation's direction), else DesiredWithinRange.
 */
export function limitByRate(a: RateLimitInput): Explained {
  if (a.desired > a.current) {
    const rateLimit = Math.max(scaleUpLimit(a.current, a.history, a.up, a.now), a.current);
    const byRate = a.maxReplicas > rateLimit;
    const allowed = byRate ? rateLimit : a.maxReplicas;
    if (a.desired > allowed) {
      return byRate
        ? { replicas: allowed, reason: "ScaleUpLimit", message: "the desired replica count is increasing faster than the maximum scale rate" }
        : { replicas: allowed, reason: "TooManyReplicas", message: "the desired replica count is more than the maximum replica count" };
    }
  } else if (a.desired < a.current) {
    const rateLimit = Math.min(scaleDownLimit(a.current, a.history, a.down, a.now), a.current);
    const byRate = a.minReplicas < rateLimit;
    const allowed = byRate ? rateLimit : a.minReplicas;
    if (a.desired < allowed) {
      return byRate
        ? { replicas: allowed, reason: "ScaleDownLimit", message: "the desired replica count is decreasing faster than the maximum scale rate" }
        : { replicas: allowed, reason: "TooFewReplicas", message: "the desired replica count is less than the minimum replica count" };
    }
  }
  return { replicas: a.desired, reason: "DesiredWithinRange", message: "the desired count is within the acceptable range" };
}

/**
 * The history after the target went from `from` to `to` replicas at `now`: the change recorded
 * in its direction, and events older than every policy's period dropped (no limit reads them).
 */
export function recordScale(history: ScaleHistory, from: number, to: number, up: EffectiveScalingRules, down: EffectiveScalingRules, now: number): ScaleHistory {
  const longest = Math.max(0, ...up.policies.map((p) => p.periodSeconds), ...down.policies.map((p) => p.periodSeconds));
  const cutoff = secondsAgo(now, longest);
  const recent = (events: TimedScaleEvent[]) => events.filter((e) => e.at > cutoff);
  const scaleUpEvents = recent(history.scaleUpEvents);
  const scaleDownEvents = recent(history.scaleDownEvents);
  if (to > from) scaleUpEvents.push({ at: now, change: to - from });
  if (to < from) scaleDownEvents.push({ at: now, change: from - to });
  return { ...history, scaleUpEvents, scaleDownEvents };
}
