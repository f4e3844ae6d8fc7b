// A Work's status report from the per-manifest outcomes: pure. Health and the reported status are
// the kind's interpreter's (issue 21): a ResourceInterpreterCustomization's InterpretHealth and
// ReflectStatus when the fleet has one for the kind, else the native reading.
import { createHash } from "node:crypto";
import type { HealthWord, KubeObject } from "../../shared/api/types.ts";
import { Health, type ManifestStatus, WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import type { HealthAssessment } from "../../shared/interpreter/native/health-words.ts";
import { InterpreterError, type KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import { healthWord } from "../../shared/interpreter/native/index.ts";

/** The outcome of one manifest of a Work. */
export interface ManifestOutcome {
  manifest: KubeObject;
  applied: boolean;
  /** A status word when not applied (AlreadyExists, ManagedLabelFalse, CreationFailed, UpdateFailed). */
  reason: string;
  message: string;
  /** The member's object after applying, for health and status. */
  live?: KubeObject;
  /** Not applied because its namespace is being deleted: try again after this long (it is created anew once gone). */
  waitingForNamespaceMs?: number;
  /** For a Service: its ready endpoints in the member, when known. */
  readyEndpoints?: number;
  /** For a workload with pods: its pods the member's scheduler leaves Unschedulable, when any. */
  unschedulable?: { replicas: number; since: string };
}

const healthCodes: Record<HealthWord, Health> = {
  Healthy: Health.HEALTH_HEALTHY,
  Progressing: Health.HEALTH_PROGRESSING,
  Unhealthy: Health.HEALTH_UNHEALTHY,
  Unknown: Health.HEALTH_UNKNOWN,
};

/** The customized operations of an object's kind (the agent's customizations), if any. */
export type CustomizedInterpreter = (obj: KubeObject) => KindInterpreter | undefined;

/** The status word of a manifest whose interpretation failed (the object itself is applied and kept). */
export const INTERPRETER_FAILED = "InterpreterFailed";

/** What the agent reads of one applied member object: its health, its reported status, and any interpretation that failed. */
export interface MemberReading {
  health: HealthAssessment;
  status: unknown;
  /** "InterpretHealth: …" or "InterpretStatus: …" when a customization's script failed. */
  failures: string[];
}

/**
 * The health and status of an applied member object. A customization's InterpretHealth says
 * Healthy or Unhealthy (Karmada's boolean); when it fails the health is Unknown and the failure is
 * reported. A customization's ReflectStatus picks what is reported; when it fails nothing is (as
 * Karmada, which then reports no status). The member's generation rides along (as Karmada reflects
 * it), so the control plane can tell whether the member's controller observed the applied spec.
 */
export function readMember(live: KubeObject, customized: KindInterpreter | undefined): MemberReading {
  const failures: string[] = [];
  let health: HealthAssessment;
  if (customized?.interpretHealth !== undefined) {
    try {
      health = customized.interpretHealth(live) ? { health: "Healthy", message: "" } : { health: "Unhealthy", message: "the customization's InterpretHealth says it is not healthy" };
    } catch (err) {
      const text = failureText("InterpretHealth", err);
      failures.push(text);
      health = { health: "Unknown", message: text };
    }
  } else {
    health = healthWord(live);
  }
  let status: unknown;
  if (customized?.reflectStatus !== undefined) {
    try {
      status = customized.reflectStatus(live);
    } catch (err) {
      failures.push(failureText("InterpretStatus", err));
      status = undefined;
    }
  } else {
    // Karmada's default reflects the whole status (read here, not copied: it is serialized next).
    status = (live as { status?: unknown }).status;
  }
  const generation = live.metadata.generation;
  if (status !== null && typeof status === "object" && !Array.isArray(status) && generation !== undefined) status = { ...status, generation };
  return { health, status, failures };
}

function failureText(operation: string, err: unknown): string {
  if (err instanceof InterpreterError) return err.message;
  return `${operation}: ${err instanceof Error ? err.message : String(err)}`;
}

const utf8 = new TextEncoder();

/**
 * The text's UTF-8 bytes in a memory of their own. The agent keeps each Work's last status until
 * the next: a small Buffer.from() is a slice of Node's shared 64 KiB pool, and one kept slice keeps
 * the whole pool (bench:agent-rss found 6 MiB of pools held by 1,000 statuses).
 */
export function ownBytes(text: string): Buffer {
  const bytes = utf8.encode(text);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The WorkStatus an agent reports for a Work at a hash; `customized`: the kinds' customized operations (none by default). */
export function workStatus(key: string, hash: string, outcomes: ManifestOutcome[], customized: CustomizedInterpreter = () => undefined): WorkStatus {
  const failures: string[] = [];
  const manifests: ManifestStatus[] = outcomes.map((o) => {
    const gv = o.manifest.apiVersion.split("/");
    const reading = o.live !== undefined && o.applied ? readMember(o.live, customized(o.live)) : undefined;
    const health: HealthAssessment = reading?.health ?? { health: "Unknown" as HealthWord, message: "" };
    const status = reading === undefined ? (o.live as { status?: unknown } | undefined)?.status : reading.status;
    for (const f of reading?.failures ?? []) failures.push(`${o.manifest.kind}/${o.manifest.metadata.name}: ${f}`);
    return {
      resource: {
        group: gv.length === 2 ? (gv[0] as string) : "",
        version: gv.length === 2 ? (gv[1] as string) : (gv[0] as string),
        kind: o.manifest.kind,
        namespace: o.manifest.metadata.namespace ?? "",
        name: o.manifest.metadata.name ?? "",
      },
      applied: o.applied,
      health: healthCodes[health.health],
      reason: o.reason || (reading !== undefined && reading.failures.length > 0 ? INTERPRETER_FAILED : ""),
      message: o.message || (reading?.failures.join("; ") ?? "") || health.message,
      status: status === undefined ? Buffer.alloc(0) : ownBytes(JSON.stringify(status)),
      ...(o.readyEndpoints === undefined ? {} : { readyEndpoints: o.readyEndpoints }),
      ...(o.unschedulable === undefined ? {} : { unschedulableReplicas: o.unschedulable.replicas, unschedulableSince: o.unschedulable.since }),
    };
  });
  const failed = outcomes.filter((o) => !o.applied);
  const available = outcomes.length > 0 && manifests.every((m) => m.applied && m.health === Health.HEALTH_HEALTHY);
  return {
    workKey: key,
    observedHash: hash,
    applied: failed.length === 0,
    available,
    // A failed interpretation is reported where the user looks (the binding's conditions), after any failed apply.
    reason: failed[0]?.reason ?? (failures.length > 0 ? INTERPRETER_FAILED : ""),
    message: [...failed.map((o) => `${o.manifest.kind}/${o.manifest.metadata.name}: ${o.message}`), ...failures].join("; "),
    manifests,
    deleted: false,
  };
}

/**
 * What tells one status from another, small: the SHA-256 of its wire encoding. The runner keeps it
 * per Work to report only changes; it kept the status's JSON, in which every byte of each
 * manifest's status was a number in an array (several KiB a Work).
 */
export function statusDigest(status: WorkStatus): string {
  return createHash("sha256").update(WorkStatus.encode(status).finish()).digest("base64");
}
