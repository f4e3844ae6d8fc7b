// A CronFederatedHPA's rules at one moment (issue 22), pure: which are due, what each does to its
// target, and the execution histories to write, as Karmada's CronFederatedHPA keeps them. A rule
// runs when its status' nextExecutionTime has passed (once, however late: runs missed while no
// control plane led are not caught up one by one); a new rule, or one whose schedule or zone was
// edited, is given its next time and does not run at once; a suspended rule has no next time.
import { type CronFederatedHPA, type CronFederatedHPARule, type ExecutionHistory, targetsFederatedHpa } from "../../shared/api/autoscaling.ts";
import { nextRun, parseSchedule, timeZoneError } from "../../shared/autoscaling/cron.ts";

/** What one due rule asks: a workload's replicas, or a FederatedHPA's bounds. */
export type CronAction = { rule: string; scheduleTime: string } & ({ kind: "replicas"; replicas: number } | { kind: "bounds"; minReplicas?: number; maxReplicas?: number });

/** How a due rule's action ended, as the shell reports it. */
export type CronOutcome = { rule: string; scheduleTime: string; ok: true; applied: { replicas?: number; minReplicas?: number; maxReplicas?: number } } | { rule: string; scheduleTime: string; ok: false; message: string };

const DEFAULT_HISTORY_LIMIT = 3;

/** The rules due at `now`: those whose recorded next execution time has passed and that are not suspended. */
export function dueActions(cron: CronFederatedHPA, now: Date, targetsFederatedHpa: boolean): CronAction[] {
  const histories = new Map((cron.status?.executionHistories ?? []).map((h) => [h.ruleName, h]));
  const out: CronAction[] = [];
  for (const rule of cron.spec.rules) {
    const next = histories.get(rule.name)?.nextExecutionTime;
    if (rule.suspend === true || next === undefined || Date.parse(next) > now.getTime()) continue;
    // A rule edited since (another schedule or zone) does not fire at the time recorded for the old one.
    if (nextExecution(rule, new Date(Date.parse(next) - 1)) !== next) continue;
    if (targetsFederatedHpa) {
      // Neither bound: nothing to set (unstartableRules says why).
      if (rule.targetMinReplicas === undefined && rule.targetMaxReplicas === undefined) continue;
      out.push({ rule: rule.name, scheduleTime: next, kind: "bounds", ...(rule.targetMinReplicas === undefined ? {} : { minReplicas: rule.targetMinReplicas }), ...(rule.targetMaxReplicas === undefined ? {} : { maxReplicas: rule.targetMaxReplicas }) });
    } else if (rule.targetReplicas !== undefined) {
      out.push({ rule: rule.name, scheduleTime: next, kind: "replicas", replicas: rule.targetReplicas });
    }
  }
  return out;
}

/**
 * The execution histories after this moment: one per rule in spec order, each with its next
 * execution time after `now` (none while suspended or when the schedule never fires), and the
 * outcomes recorded newest first within the rule's history limits. Histories of rules no longer
 * in the spec go.
 */
export function executionHistories(cron: CronFederatedHPA, now: Date, outcomes: readonly CronOutcome[]): ExecutionHistory[] {
  const before = new Map((cron.status?.executionHistories ?? []).map((h) => [h.ruleName, h]));
  const at = now.toISOString();
  return cron.spec.rules.map((rule) => {
    const had = before.get(rule.name);
    const mine = outcomes.filter((o) => o.rule === rule.name);
    const successful = [
      ...mine.flatMap((o) => (o.ok ? [{ scheduleTime: o.scheduleTime, executionTime: at, ...appliedFields(o.applied) }] : [])),
      ...(had?.successfulExecutions ?? []),
    ].slice(0, rule.successfulHistoryLimit ?? DEFAULT_HISTORY_LIMIT);
    const failed = [...mine.flatMap((o) => (o.ok ? [] : [{ scheduleTime: o.scheduleTime, executionTime: at, message: o.message }])), ...(had?.failedExecutions ?? [])].slice(0, rule.failedHistoryLimit ?? DEFAULT_HISTORY_LIMIT);
    const next = nextExecution(rule, now);
    const h: ExecutionHistory = { ruleName: rule.name };
    if (next !== undefined) h.nextExecutionTime = next;
    if (successful.length > 0) h.successfulExecutions = successful;
    if (failed.length > 0) h.failedExecutions = failed;
    return h;
  });
}

function appliedFields(a: { replicas?: number; minReplicas?: number; maxReplicas?: number }): { appliedReplicas?: number; appliedMinReplicas?: number; appliedMaxReplicas?: number } {
  return {
    ...(a.replicas === undefined ? {} : { appliedReplicas: a.replicas }),
    ...(a.minReplicas === undefined ? {} : { appliedMinReplicas: a.minReplicas }),
    ...(a.maxReplicas === undefined ? {} : { appliedMaxReplicas: a.maxReplicas }),
  };
}

/** The rule's next execution time after `now` (RFC 3339), none while suspended or for a schedule that cannot be read. */
function nextExecution(rule: CronFederatedHPARule, now: Date): string | undefined {
  if (rule.suspend === true) return undefined;
  try {
    return nextRun(rule.schedule, now, rule.timeZone)?.toISOString();
  } catch {
    return undefined;
  }
}

/**
 * The rules that can never run: not suspended, with a schedule or time zone that cannot be read
 * (the webhook refuses them, when it runs), or scaling a FederatedHPA with neither bound (only a
 * FederatedHPA named by Karmada's group with targetReplicas, which was a workload's rule before
 * issue 39 and so stays accepted).
 */
export function unstartableRules(cron: CronFederatedHPA): { rule: string; error: string }[] {
  const toFederatedHpa = targetsFederatedHpa(cron.spec.scaleTargetRef);
  return cron.spec.rules.flatMap((rule) => {
    if (rule.suspend === true) return [];
    const schedule = parseSchedule(rule.schedule);
    const zone = rule.timeZone === undefined ? undefined : timeZoneError(rule.timeZone);
    const noBounds = toFederatedHpa && rule.targetMinReplicas === undefined && rule.targetMaxReplicas === undefined;
    const errors = [
      ...(schedule instanceof Error ? [`invalid schedule ${JSON.stringify(rule.schedule)}: ${schedule.message}`] : []),
      ...(zone === undefined ? [] : [zone]),
      ...(noBounds ? ["a rule that scales a FederatedHPA needs targetMinReplicas or targetMaxReplicas (targetReplicas sets a workload's replicas)"] : []),
    ];
    return errors.length === 0 ? [] : [{ rule: rule.name, error: errors.join("; ") }];
  });
}

/** The earliest next execution time of the rules, for the shell's requeue. */
export function nextWake(histories: readonly ExecutionHistory[], now: Date): number | undefined {
  const times = histories.flatMap((h) => (h.nextExecutionTime === undefined ? [] : [Date.parse(h.nextExecutionTime) - now.getTime()]));
  return times.length === 0 ? undefined : Math.max(0, Math.min(...times));
}
