// Job and CronJob (batch/v1), as Karmada's default interpreter reads them; and the share of a
// Divided Job's completions each member runs, as Karmada's binding controller divides them. Pure.
import type { KubeObject } from "../../api/types.ts";
import type { KindInterpreter, StatusItem } from "../interpreter.ts";
import { at, condition, copy, instant, int, isRecord, type Json, rec, records } from "./object.ts";
import { namespaceOf, reviseSpecField, templateDependencies } from "./workload.ts";
import { podReplicaRequirements } from "./pod-template.ts";

/** Whether a Job status has finished: a Complete or Failed condition that is True. */
export function jobFinished(status: Json): "Complete" | "Failed" | undefined {
  for (const c of records(status.conditions)) {
    if ((c.type === "Complete" || c.type === "Failed") && c.status === "True") return c.type;
  }
  return undefined;
}

const JOB_STATUS_FIELDS = ["active", "succeeded", "failed", "conditions", "startTime", "completionTime"];

export const job: KindInterpreter = {
  // Pods run at once: parallelism, but never more than completions (a fixed-count Job ignores
  // parallelism above it).
  getReplicas: (obj) => {
    const parallelism = int(at(obj, "spec", "parallelism"));
    const completions = at(obj, "spec", "completions");
    const replicas = typeof completions === "number" ? Math.min(parallelism, completions) : parallelism;
    const requires = podReplicaRequirements(rec(at(obj, "spec", "template", "spec")), namespaceOf(obj));
    return requires === undefined ? { replicas } : { replicas, requires };
  },
  reviseReplica: (obj, n) => reviseSpecField(obj, "parallelism", n),
  // The member's Job controller owns the selector and the template labels it generated.
  retain: (desired, observed) => {
    const out = copy(desired);
    const spec = rec(out.spec);
    const matchLabels = at(observed, "spec", "selector", "matchLabels");
    if (isRecord(matchLabels)) spec.selector = { ...rec(spec.selector), matchLabels: { ...matchLabels } };
    const labels = at(observed, "spec", "template", "metadata", "labels");
    if (isRecord(labels)) {
      const template = rec(spec.template);
      spec.template = { ...template, metadata: { ...rec(template.metadata), labels: { ...labels } } };
    }
    out.spec = spec;
    return out;
  },
  reflectStatus: (observed) => {
    if (!isRecord(observed.status)) return undefined;
    const status = observed.status;
    const out: Json = {};
    for (const f of JOB_STATUS_FIELDS) {
      const v = status[f];
      if (v === undefined || v === null || v === 0 || (Array.isArray(v) && v.length === 0)) continue;
      out[f] = structuredClone(v);
    }
    return out;
  },
  aggregateStatus: (obj, items) => {
    // A finished Job's status is final.
    if (jobFinished(rec(obj.status)) !== undefined) return copy(obj);
    const out = copy(obj);
    out.status = aggregateJobStatus(rec(obj.status), items);
    return out;
  },
  getDependencies: (obj) => templateDependencies(obj, "spec", "template", "spec"),
};

/**
 * The fleet's Job status (Karmada's ParsingJobStatus): active, succeeded and failed summed;
 * Failed when any member failed; Complete (and SuccessCriteriaMet when every member met it) when
 * every member completed; the earliest start once every member started; the latest completion
 * once every member completed. A member without a status yet counts as not started and not
 * complete. Karmada stamps its conditions with the current time; to stay pure and write the same
 * status twice, these carry the latest time of the same condition among the members.
 */
export function aggregateJobStatus(template: Json, items: readonly StatusItem[]): Json {
  let active = 0;
  let succeeded = 0;
  let failed = 0;
  const failedIn: string[] = [];
  const byType = new Map<string, Json[]>();
  let completeCount = 0;
  let criteriaCount = 0;
  let started = 0;
  let completed = 0;
  let start: string | undefined;
  let completion: string | undefined;
  for (const item of items) {
    if (item.status === undefined) continue;
    const s = item.status;
    active += int(s.active);
    succeeded += int(s.succeeded);
    failed += int(s.failed);
    const finished = jobFinished(s);
    if (finished === "Complete") completeCount++;
    if (finished === "Failed") failedIn.push(item.clusterName);
    const criteria = condition(s, "SuccessCriteriaMet");
    if (criteria?.status === "True") criteriaCount++;
    for (const type of ["Complete", "Failed", "SuccessCriteriaMet"]) {
      const c = records(s.conditions).find((x) => x.type === type && x.status === "True");
      if (c !== undefined) byType.set(type, [...(byType.get(type) ?? []), c]);
    }
    const st = instant(s.startTime);
    if (st !== undefined) {
      started++;
      if (start === undefined || st < (instant(start) ?? Infinity)) start = s.startTime as string;
    }
    const ct = instant(s.completionTime);
    if (ct !== undefined) {
      completed++;
      if (completion === undefined || ct > (instant(completion) ?? -Infinity)) completion = s.completionTime as string;
    }
  }
  const out: Json = {};
  if (active !== 0) out.active = active;
  if (succeeded !== 0) out.succeeded = succeeded;
  if (failed !== 0) out.failed = failed;
  const conditions: Json[] = [];
  const stamp = (type: string, reason: string, message: string): Json => {
    const latest = latestTransition(byType.get(type) ?? []);
    return { type, status: "True", ...(latest === undefined ? {} : { lastProbeTime: latest, lastTransitionTime: latest }), reason, message };
  };
  if (failedIn.length > 0) conditions.push(stamp("Failed", "JobFailed", `Job executed failed in member clusters ${failedIn.join(",")}`));
  // No members yet (a binding just created) is not complete.
  if (completeCount > 0 && completeCount === items.length) {
    conditions.push(stamp("Complete", "Completed", "Job completed"));
    if (criteriaCount === items.length) {
      conditions.push(stamp("SuccessCriteriaMet", "CompletionsReached", "All member clusters have met success criteria"));
    }
  }
  if (conditions.length > 0) out.conditions = conditions;
  if (template.startTime !== undefined && template.startTime !== null) out.startTime = template.startTime;
  else if (started > 0 && started === items.length && start !== undefined) out.startTime = start;
  if (completion !== undefined && completed === items.length) out.completionTime = completion;
  return out;
}

function latestTransition(conditions: readonly Json[]): string | undefined {
  let best: string | undefined;
  for (const c of conditions) {
    const t = instant(c.lastTransitionTime);
    if (t !== undefined && (best === undefined || t > (instant(best) ?? -Infinity))) best = c.lastTransitionTime as string;
  }
  return best;
}

export const cronJob: KindInterpreter = {
  // Active Jobs from every member, the latest schedule and the latest success.
  aggregateStatus: (obj, items) => {
    const out = copy(obj);
    const active: unknown[] = [];
    let lastSchedule: unknown;
    let lastSuccess: unknown;
    for (const item of items) {
      if (item.status === undefined) continue;
      active.push(...(Array.isArray(item.status.active) ? structuredClone(item.status.active) : []));
      if (later(item.status.lastScheduleTime, lastSchedule)) lastSchedule = item.status.lastScheduleTime;
      if (later(item.status.lastSuccessfulTime, lastSuccess)) lastSuccess = item.status.lastSuccessfulTime;
    }
    const status: Json = {};
    if (active.length > 0) status.active = active;
    if (lastSchedule !== undefined) status.lastScheduleTime = lastSchedule;
    if (lastSuccess !== undefined) status.lastSuccessfulTime = lastSuccess;
    out.status = status;
    return out;
  },
  getDependencies: (obj) => templateDependencies(obj, "spec", "jobTemplate", "spec", "template", "spec"),
};

function later(candidate: unknown, current: unknown): boolean {
  const c = instant(candidate);
  if (c === undefined) return false;
  const now = instant(current);
  return now === undefined || c > now;
}

/** One member's share of the Job's replicas, as the binding lists it. */
export interface JobTarget {
  name: string;
  replicas: number;
}

/**
 * Each member's `spec.completions` when a Job with completions is Divided (Karmada's
 * divideReplicasByJobCompletions): the completions split by the Webster method with each member's
 * parallelism as its weight, so every member finishes in about the same time. Undefined when the
 * Job sets no completions (a work-queue Job): then each member keeps the template's. The
 * template's uid breaks ties as Karmada's does (name ascending or descending by its FNV-1a hash).
 */
export function divideJobCompletions(obj: KubeObject, targets: readonly JobTarget[]): Map<string, number> | undefined {
  const completions = at(obj, "spec", "completions");
  if (typeof completions !== "number") return undefined;
  const descending = (fnv1a32(obj.metadata.uid ?? "") & 1) === 1 && (obj.metadata.uid ?? "") !== "";
  const parties = targets.map((t) => ({ name: t.name, votes: t.replicas, seats: 0 }));
  for (let left = completions; left > 0 && parties.length > 0; left--) {
    let best = parties[0] as (typeof parties)[number];
    for (const p of parties.slice(1)) if (websterBefore(p, best, descending)) best = p;
    best.seats++;
  }
  return new Map(parties.map((p) => [p.name, p.seats]));
}

/** Whether party a gets the next seat before b: higher votes/(2·seats+1), then fewer seats, then name. */
function websterBefore(a: { name: string; votes: number; seats: number }, b: { name: string; votes: number; seats: number }, descending: boolean): boolean {
  // Cross-multiplied to compare the quotients exactly.
  const left = a.votes * (2 * b.seats + 1);
  const right = b.votes * (2 * a.seats + 1);
  if (left !== right) return left > right;
  if (a.seats !== b.seats) return a.seats < b.seats;
  return descending ? a.name > b.name : a.name < b.name;
}

function fnv1a32(s: string): number {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(s)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The member's Job with its share of the completions, when the template sets completions. */
export function reviseJobCompletions(obj: KubeObject, completions: number): KubeObject {
  return reviseSpecField(obj, "completions", completions);
}
