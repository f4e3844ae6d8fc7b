// Kubernetes Events on templates for propagation failures (and on other Flotilla objects, e.g. a
// FederatedHPA's rescales), so `kubectl describe` and event watchers see them. Bounded and coalescing like client-go's recorder: the same (object, reason,
// message) again within the window bumps the existing Event's count instead of creating another.
// Messages come from status words and status messages, never from object content (no Secret data).
import type { Logger } from "pino";
import type { Condition, KubeObject, ResourceBindingStatus } from "../../shared/api/types.ts";
import { isKubeStatus, type KubeRest } from "../../shared/kube-rest.ts";

/** The `source.component` and `reportingComponent` of every Event we write. */
export const EVENT_COMPONENT = "flotilla-control-plane";
/** A repeat within this window updates the existing Event. */
export const COALESCE_WINDOW_MS = 10 * 60_000;
/** Events remembered for coalescing; the least recently seen is forgotten first. */
export const MAX_REMEMBERED = 4096;
/** The apiserver's limit for an Event's message (events.k8s.io note). */
const MAX_MESSAGE = 1024;
/** Where Events about cluster-scoped objects go. */
/** Where Events about a cluster-scoped object go. */
export const CLUSTER_SCOPED_NAMESPACE = "default";

/** The object an Event is about (a template). */
export interface InvolvedObject {
  apiVersion: string;
  kind: string;
  /** Absent for a cluster-scoped object. */
  namespace?: string;
  name: string;
  uid?: string;
}

/** One failure to tell the user: a status word and what it says; `type` Normal for what is not a failure (default Warning). */
export interface Failure {
  reason: string;
  message: string;
  type?: EventType;
}

/** core/v1 Event types. */
export type EventType = "Warning" | "Normal";

/** What the recorder remembers of an Event it wrote. */
export interface SeenEvent {
  namespace: string;
  name: string;
  count: number;
  firstTimestamp: string;
  /** When it was last written (ms since the epoch). */
  lastMs: number;
}

/** A core/v1 Event as we create it. */
export interface CoreEvent {
  apiVersion: "v1";
  kind: "Event";
  metadata: { name: string; namespace: string };
  involvedObject: InvolvedObject;
  type: EventType;
  reason: string;
  message: string;
  count: number;
  firstTimestamp: string;
  lastTimestamp: string;
  source: { component: string };
  reportingComponent: string;
}

/** What to write for one occurrence; a patch carries the whole Event too, to create it again if it expired. */
export type EventWrite = { action: "create"; event: CoreEvent } | { action: "patch"; event: CoreEvent; patch: { count: number; lastTimestamp: string } };

/** The involvedObject of an Event about obj. */
export function involvedObjectOf(obj: KubeObject): InvolvedObject {
  const { namespace, name = "", uid } = obj.metadata;
  return { apiVersion: obj.apiVersion, kind: obj.kind, ...(namespace ? { namespace } : {}), name, ...(uid ? { uid } : {}) };
}

/** The coalescing key: the same object, type, reason and message is the same Event. */
export function eventKey(object: InvolvedObject, failure: Failure): string {
  return JSON.stringify([object.apiVersion, object.kind, object.namespace ?? "", object.name, object.uid ?? "", failure.type ?? "Warning", failure.reason, message(failure)]);
}

/**
 * Decides whether an occurrence is new (create an Event named `freshName`) or a repeat within the
 * window of the one last written (patch its count and lastTimestamp); returns what to remember.
 */
export function planEvent(object: InvolvedObject, failure: Failure, seen: SeenEvent | undefined, nowMs: number, freshName: string): { write: EventWrite; seen: SeenEvent } {
  const now = timestamp(nowMs);
  const repeat = seen !== undefined && nowMs - seen.lastMs < COALESCE_WINDOW_MS;
  const next: SeenEvent = repeat
    ? { ...seen, count: seen.count + 1, lastMs: nowMs }
    : { namespace: object.namespace || CLUSTER_SCOPED_NAMESPACE, name: freshName, count: 1, firstTimestamp: now, lastMs: nowMs };
  const event: CoreEvent = {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: next.name, namespace: next.namespace },
    involvedObject: object,
    type: failure.type ?? "Warning",
    reason: failure.reason,
    message: message(failure),
    count: next.count,
    firstTimestamp: next.firstTimestamp,
    lastTimestamp: now,
    source: { component: EVENT_COMPONENT },
    reportingComponent: EVENT_COMPONENT,
  };
  const write: EventWrite = repeat ? { action: "patch", event, patch: { count: next.count, lastTimestamp: now } } : { action: "create", event };
  return { write, seen: next };
}

/** client-go's Event name: the object's name and a unique hex suffix, kept a valid DNS subdomain. */
export function eventName(objectName: string, nowMs: number, seq: number): string {
  const suffix = (BigInt(Math.floor(nowMs)) * 1_000_000n + BigInt(seq % 1_000_000)).toString(16);
  const base = objectName.toLowerCase().replace(/[^a-z0-9.-]/g, "-").slice(0, 253 - suffix.length - 1).replace(/[^a-z0-9]+$/, "");
  return `${base || "object"}.${suffix}`;
}

/**
 * The failures a binding status write newly shows: each target cluster's entry with a status word
 * that the previous status did not have, and a Scheduled condition that turned False. Repeats of a
 * standing failure are not new, so Events follow changes. Not failures of the template: waiting
 * for removal, and a cluster that is not ready (its Cluster says so; an Event on each of its
 * thousands of templates would flood the apiserver just when it is busiest).
 */
const NOT_TEMPLATE_FAILURES: ReadonlySet<string> = new Set(["WaitingForRemoval", "ClusterNotReady"]);

export function newFailures(previous: ResourceBindingStatus | undefined, current: ResourceBindingStatus, targets: ReadonlySet<string>): Failure[] {
  const before = new Map((previous?.aggregatedStatus ?? []).map((i) => [i.clusterName, i]));
  const out: Failure[] = [];
  for (const item of current.aggregatedStatus ?? []) {
    const reason = item.reason ?? "";
    if (reason === "" || NOT_TEMPLATE_FAILURES.has(reason) || !targets.has(item.clusterName)) continue;
    const old = before.get(item.clusterName);
    if (old?.reason === reason && (old.message ?? "") === (item.message ?? "")) continue;
    out.push({ reason, message: `cluster ${item.clusterName}: ${item.message || reason}` });
  }
  const scheduled = scheduledOf(current.conditions);
  const wasScheduled = scheduledOf(previous?.conditions);
  if (scheduled?.status === "False" && (wasScheduled?.status !== "False" || wasScheduled.reason !== scheduled.reason)) {
    out.push({ reason: scheduled.reason, message: scheduled.message });
  }
  return out;
}

/**
 * Writes Events (Warning, or Normal when asked). Never fails its caller: a write error is logged at debug.
 * Writes for one coalescing key run in order, so a repeat patches the Event its first occurrence
 * created.
 */
/** At most this many Event writes at once, then EVENTS_PER_SECOND. */
const EVENT_BURST = 100;
const EVENTS_PER_SECOND = 10;

export class EventRecorder {
  private readonly rest: KubeRest;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly seen = new Map<string, { event: SeenEvent; written: Promise<void> }>();
  private seq = 0;
  /** Token bucket over all writes (client-go spam-filter style): a burst, then a steady rate. */
  private tokens = EVENT_BURST;
  private refilledAt: number;
  /** Events dropped by the rate limit, for tests and metrics. */
  dropped = 0;

  constructor(opts: { rest: KubeRest; log: Logger; now?: () => number }) {
    this.rest = opts.rest;
    this.log = opts.log;
    this.now = opts.now ?? Date.now;
    this.refilledAt = this.now();
  }

  /** Records an Event (Warning unless failure.type says Normal) about object (asynchronously; returns when it was written or dropped). */
  record(object: InvolvedObject, failure: Failure): Promise<void> {
    const key = eventKey(object, failure);
    const nowMs = this.now();
    this.tokens = Math.min(EVENT_BURST, this.tokens + ((nowMs - this.refilledAt) / 1000) * EVENTS_PER_SECOND);
    this.refilledAt = nowMs;
    if (this.tokens < 1) {
      // A storm (one broken override on thousands of templates): the binding statuses still say it all.
      this.dropped++;
      return Promise.resolve();
    }
    this.tokens -= 1;
    const previous = this.seen.get(key);
    const { write, seen } = planEvent(object, failure, previous?.event, nowMs, eventName(object.name, nowMs, this.seq++));
    const written = (previous?.written ?? Promise.resolve()).then(() => this.write(write));
    // Least recently seen first: re-inserting moves the key to the end.
    this.seen.delete(key);
    this.seen.set(key, { event: seen, written });
    for (const k of this.seen.keys()) {
      if (this.seen.size <= MAX_REMEMBERED) break;
      this.seen.delete(k);
    }
    return written;
  }

  private async write(w: EventWrite): Promise<void> {
    const { name, namespace } = w.event.metadata;
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`;
    try {
      if (w.action === "patch") {
        try {
          await this.rest.mergePatch(`${path}/${encodeURIComponent(name)}`, w.patch);
          return;
        } catch (err) {
          // Gone (the apiserver's event TTL, or deleted): create it again under the same name, as client-go does.
          if (!isKubeStatus(err, 404)) throw err;
        }
      }
      await this.rest.request("POST", path, { body: w.event });
    } catch (err) {
      const { involvedObject: o, reason } = w.event;
      this.log.debug({ object: `${o.kind}/${o.name}`, namespace: o.namespace, reason, err: err instanceof Error ? err.message : String(err) }, "writing an event failed");
    }
  }
}

function message(failure: Failure): string {
  return failure.message.length <= MAX_MESSAGE ? failure.message : `${failure.message.slice(0, MAX_MESSAGE - 3)}...`;
}

function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function scheduledOf(conditions: Condition[] | undefined): Condition | undefined {
  return conditions?.find((c) => c.type === "Scheduled");
}
