// Sample batch/v1 objects (Job, CronJob) through every operation, with Flotilla's answers.
import type { KubeObject } from "../../api/types.ts";
import { item, type NativeCase, obj } from "./native.fixtures.ts";

const podSpec = {
  restartPolicy: "Never",
  containers: [{ name: "work", image: "worker", resources: { requests: { cpu: "1", memory: "256Mi" } }, envFrom: [{ secretRef: { name: "queue-creds" } }] }],
};
const requires = { resourceRequest: { cpu: "1", memory: "256Mi" }, namespace: "batch" };
const meta = { name: "crunch", namespace: "batch", generation: 1 };

const job = (spec: Record<string, unknown> = {}, status?: Record<string, unknown>, metadata: KubeObject["metadata"] = meta) =>
  obj("batch/v1", "Job", metadata, { spec: { parallelism: 4, completions: 8, template: { spec: podSpec }, ...spec }, ...(status ? { status } : {}) });

const complete = (at: string) => ({ type: "Complete", status: "True", lastProbeTime: at, lastTransitionTime: at, reason: "", message: "" });
const failed = (at: string) => ({ type: "Failed", status: "True", lastProbeTime: at, lastTransitionTime: at, reason: "BackoffLimitExceeded", message: "Job has reached the specified backoff limit" });
const criteria = (at: string) => ({ type: "SuccessCriteriaMet", status: "True", lastProbeTime: at, lastTransitionTime: at, reason: "CompletionsReached", message: "" });
const T1 = "2026-11-24T08:00:00Z";
const T2 = "2026-11-24T08:01:00Z";
const T3 = "2026-11-24T08:05:00Z";
const T4 = "2026-11-24T08:07:00Z";

const cronJob = (status?: Record<string, unknown>) =>
  obj("batch/v1", "CronJob", meta, { spec: { schedule: "*/5 * * * *", jobTemplate: { spec: { template: { spec: podSpec } } } }, ...(status ? { status } : {}) });
const activeRef = (name: string) => ({ kind: "Job", namespace: "batch", name, uid: `uid-${name}`, apiVersion: "batch/v1", resourceVersion: "1" });

export const batchCases: NativeCase[] = [
  // ---- Job
  { name: "parallelism 4 of completions 8 runs 4 at once", op: "InterpretReplica", object: job(), want: { replica: 4, requires } },
  { name: "completions below parallelism cap it", op: "InterpretReplica", object: job({ completions: 2 }), want: { replica: 2, requires } },
  { name: "a work-queue Job (no completions) runs parallelism", op: "InterpretReplica", object: job({ parallelism: 3, completions: undefined }), want: { replica: 3, requires } },
  { name: "no parallelism reads as 0", op: "InterpretReplica", object: job({ parallelism: undefined }), want: { replica: 0, requires } },
  { name: "sets parallelism, not completions", op: "ReviseReplica", object: job(), replicas: 2, want: job({ parallelism: 2 }) },
  { name: "leaves a Job without parallelism alone", op: "ReviseReplica", object: job({ parallelism: undefined }), replicas: 2, want: job({ parallelism: undefined }) },
  { name: "completions 8 over parallelism 2 + 2 is 4 + 4", op: "JobCompletions", object: job(), targets: [{ name: "m1", replicas: 2 }, { name: "m2", replicas: 2 }], want: { m1: 4, m2: 4 } },
  { name: "completions follow the parallelism weights (3 + 1)", op: "JobCompletions", object: job(), targets: [{ name: "m1", replicas: 3 }, { name: "m2", replicas: 1 }], want: { m1: 6, m2: 2 } },
  {
    name: "an odd completion goes to the smaller name without a uid",
    op: "JobCompletions",
    object: job({ completions: 3 }),
    targets: [{ name: "m1", replicas: 1 }, { name: "m2", replicas: 1 }],
    want: { m1: 2, m2: 1 },
  },
  {
    name: "a uid whose FNV-1a hash is odd gives it to the larger name",
    op: "JobCompletions",
    object: job({ completions: 3 }),
    uid: "b",
    targets: [{ name: "m1", replicas: 1 }, { name: "m2", replicas: 1 }],
    want: { m1: 1, m2: 2 },
  },
  {
    name: "a uid whose FNV-1a hash is even keeps the smaller name first",
    op: "JobCompletions",
    object: job({ completions: 3 }),
    uid: "a",
    targets: [{ name: "m1", replicas: 1 }, { name: "m2", replicas: 1 }],
    want: { m1: 2, m2: 1 },
  },
  { name: "a work-queue Job keeps its completions unset", op: "JobCompletions", object: job({ completions: undefined }), targets: [{ name: "m1", replicas: 2 }], want: null },
  {
    name: "keeps the member's generated selector and template labels",
    op: "Retain",
    object: job(),
    observed: job({
      selector: { matchLabels: { "batch.kubernetes.io/controller-uid": "u1" } },
      template: { metadata: { labels: { "batch.kubernetes.io/controller-uid": "u1", "job-name": "crunch" } }, spec: podSpec },
    }),
    want: job({
      selector: { matchLabels: { "batch.kubernetes.io/controller-uid": "u1" } },
      template: { metadata: { labels: { "batch.kubernetes.io/controller-uid": "u1", "job-name": "crunch" } }, spec: podSpec },
    }),
  },
  {
    name: "reflects counts, conditions and times only",
    op: "InterpretStatus",
    object: job({}, { active: 1, succeeded: 3, failed: 1, ready: 1, terminating: 0, startTime: T1, uncountedTerminatedPods: {}, conditions: [criteria(T3)] }),
    want: { active: 1, succeeded: 3, failed: 1, startTime: T1, conditions: [criteria(T3)] },
  },
  {
    name: "every member complete: counts summed, earliest start, latest completion, Complete",
    op: "AggregateStatus",
    object: job({}, { ready: 0 }),
    items: [
      item("m1", { succeeded: 4, startTime: T2, completionTime: T3, conditions: [criteria(T3), complete(T3)] }),
      item("m2", { succeeded: 4, startTime: T1, completionTime: T4, conditions: [criteria(T4), complete(T4)] }),
    ],
    want: {
      succeeded: 8,
      conditions: [
        { type: "Complete", status: "True", lastProbeTime: T4, lastTransitionTime: T4, reason: "Completed", message: "Job completed" },
        { type: "SuccessCriteriaMet", status: "True", lastProbeTime: T4, lastTransitionTime: T4, reason: "CompletionsReached", message: "All member clusters have met success criteria" },
      ],
      startTime: T1,
      completionTime: T4,
    },
  },
  {
    name: "one member still running: no Complete and no completion time",
    op: "AggregateStatus",
    object: job({}, {}),
    items: [item("m1", { active: 2, succeeded: 2, startTime: T2 }), item("m2", { succeeded: 4, startTime: T1, completionTime: T3, conditions: [complete(T3)] })],
    want: { active: 2, succeeded: 6, startTime: T1 },
  },
  {
    name: "a failed member fails the Job",
    op: "AggregateStatus",
    object: job({}, {}),
    items: [item("m1", { active: 2, startTime: T1 }), item("m2", { failed: 6, startTime: T1, conditions: [failed(T3)] })],
    want: {
      active: 2,
      failed: 6,
      conditions: [{ type: "Failed", status: "True", lastProbeTime: T3, lastTransitionTime: T3, reason: "JobFailed", message: "Job executed failed in member clusters m2" }],
      startTime: T1,
    },
  },
  {
    name: "a member not yet reporting: no start time, not complete",
    op: "AggregateStatus",
    object: job({}, {}),
    items: [item("m1", { succeeded: 4, startTime: T1, completionTime: T3, conditions: [complete(T3)] }), item("m2")],
    want: { succeeded: 4 },
  },
  {
    name: "the template's start time is kept",
    op: "AggregateStatus",
    object: job({}, { startTime: T1 }),
    items: [item("m1", { active: 4, startTime: T2 }), item("m2", { active: 4, startTime: T3 })],
    want: { active: 8, startTime: T1 },
  },
  {
    name: "a finished template's status is final",
    op: "AggregateStatus",
    object: job({}, { succeeded: 8, conditions: [complete(T4)], startTime: T1, completionTime: T4 }),
    items: [item("m1", { active: 4 })],
    want: { succeeded: 8, conditions: [complete(T4)], startTime: T1, completionTime: T4 },
  },
  { name: "no native health", op: "InterpretHealth", object: job({}, { succeeded: 8, conditions: [complete(T4)] }), want: { notInterpreted: true }, word: "Healthy" },
  { name: "no native health while running", op: "InterpretHealth", object: job({}, { active: 4 }), want: { notInterpreted: true }, word: "Progressing" },
  {
    name: "the pod template's references",
    op: "InterpretDependency",
    object: job(),
    want: [{ apiVersion: "v1", kind: "Secret", namespace: "batch", name: "queue-creds" }],
  },

  // ---- CronJob
  { name: "no replicas", op: "InterpretReplica", object: cronJob(), want: { notInterpreted: true } },
  {
    name: "every member's active Jobs, the latest schedule and success",
    op: "AggregateStatus",
    object: cronJob({ lastScheduleTime: T1 }),
    items: [
      item("m1", { active: [activeRef("crunch-1")], lastScheduleTime: T3, lastSuccessfulTime: T2 }),
      item("m2", { active: [activeRef("crunch-2")], lastScheduleTime: T2, lastSuccessfulTime: T4 }),
      item("m3"),
    ],
    want: { active: [activeRef("crunch-1"), activeRef("crunch-2")], lastScheduleTime: T3, lastSuccessfulTime: T4 },
  },
  { name: "members with nothing scheduled yet", op: "AggregateStatus", object: cronJob(), items: [item("m1", {})], want: {} },
  { name: "reflects the whole status", op: "InterpretStatus", object: cronJob({ lastScheduleTime: T1 }), want: { lastScheduleTime: T1 } },
  { name: "no native health", op: "InterpretHealth", object: cronJob({}), want: { notInterpreted: true }, word: "Unknown" },
  {
    name: "the job template's pod references",
    op: "InterpretDependency",
    object: cronJob(),
    want: [{ apiVersion: "v1", kind: "Secret", namespace: "batch", name: "queue-creds" }],
  },
];
