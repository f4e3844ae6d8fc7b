// The Events a FederatedHPA or CronFederatedHPA run leaves on its object (issue 22), pure: the
// reasons and messages kube-controller-manager's HPA gives where the same thing happens, Karmada's
// for a CronFederatedHPA rule; and which of them are due now, so that a standing failure is not
// written on every 15 s run.
import type { CronOutcome } from "./cron-rules.ts";

/** One Event to record on the autoscaler's object. */
export interface AutoscalerEvent {
  type: "Warning" | "Normal";
  reason: string;
  message: string;
}

/** What one FederatedHPA run found and how its writes ended. */
export interface FederatedHpaOutcome {
  /** Each metric that could not be computed: its ScalingActive reason (FailedGetResourceMetric, …) and error. */
  metricFailures: readonly { reason: string; error: string }[];
  /** The run's own warning: FailedGetScale, or FailedComputeMetricsReplicas when no count could be computed. */
  warning?: { reason: string; message: string };
  /** The count the run wrote (or tried to), and why. */
  scaleTo?: number;
  rescaleReason?: string;
  /** The scale write's error, when it failed. */
  scaleError?: string;
  /** The status write's error, when it failed. */
  statusError?: string;
}

/** A standing Warning is recorded again at most this often (client-go's spam filter refills one Event per object every 5 minutes). */
export const WARNING_REPEAT_MS = 5 * 60_000;

const warning = (reason: string, message: string): AutoscalerEvent => ({ type: "Warning", reason, message });

/** kube-controller-manager's Events for one HPA run, in its order: metrics, then the rescale, then the status. */
export function federatedHpaEvents(o: FederatedHpaOutcome): AutoscalerEvent[] {
  const out = o.metricFailures.map((f) => warning(f.reason, f.error));
  if (o.warning !== undefined) out.push(warning(o.warning.reason, o.warning.message));
  if (o.scaleTo !== undefined) {
    const size = `New size: ${o.scaleTo}; reason: ${o.rescaleReason ?? ""}`;
    out.push(o.scaleError === undefined ? { type: "Normal", reason: "SuccessfulRescale", message: size } : warning("FailedRescale", `${size}; error: ${o.scaleError}`));
  }
  if (o.statusError !== undefined) out.push(warning("FailedUpdateStatus", o.statusError));
  return out;
}

/**
 * Karmada's CronFederatedHPA Events: ScaleFailed for a rule whose run failed, StartRuleFailed for
 * a rule whose schedule or time zone cannot be read (it never runs), UpdateStatusFailed.
 */
export function cronFederatedHpaEvents(outcomes: readonly CronOutcome[], unstartable: readonly { rule: string; error: string }[], statusError?: string): AutoscalerEvent[] {
  const out = outcomes.flatMap((o) => (o.ok ? [] : [warning("ScaleFailed", `rule ${o.rule}: ${o.message}`)]));
  for (const u of unstartable) out.push(warning("StartRuleFailed", `rule ${u.rule}: ${u.error}`));
  if (statusError !== undefined) out.push(warning("UpdateStatusFailed", statusError));
  return out;
}

/**
 * Of one run's Events, those to record now, and the times to remember for the object's next run
 * (Warnings recorded within the last WARNING_REPEAT_MS, by type, reason and message). A Warning
 * recorded within the interval waits, so a failure that stands is recorded once every 5 minutes
 * (the recorder bumps the same Event's count) and a new one at once; a Normal Event always goes
 * (each is a rescale that happened). The same Event twice in one run is recorded once.
 */
export function dueEvents(events: readonly AutoscalerEvent[], recorded: ReadonlyMap<string, number>, now: number): { due: AutoscalerEvent[]; recorded: Map<string, number> } {
  const next = new Map([...recorded].filter(([, at]) => now - at < WARNING_REPEAT_MS));
  const due: AutoscalerEvent[] = [];
  const seen = new Set<string>();
  for (const e of events) {
    const key = JSON.stringify([e.type, e.reason, e.message]);
    if (seen.has(key)) continue;
    seen.add(key);
    if (e.type === "Warning") {
      if (next.has(key)) continue;
      next.set(key, now);
    }
    due.push(e);
  }
  return { due, recorded: next };
}
