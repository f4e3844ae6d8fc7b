// A Work's status report from the per-manifest outcomes: pure.
import type { HealthWord, KubeObject } from "../shared/api/types.ts";
import { Health, type ManifestStatus, type WorkStatus } from "../shared/gen/flotilla/v1alpha1/agent.ts";
import { assessHealth } from "../shared/health.ts";

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
}

const healthCodes: Record<HealthWord, Health> = {
  Healthy: Health.HEALTH_HEALTHY,
  Progressing: Health.HEALTH_PROGRESSING,
  Unhealthy: Health.HEALTH_UNHEALTHY,
  Unknown: Health.HEALTH_UNKNOWN,
};

/** The WorkStatus an agent reports for a Work at a hash. */
export function workStatus(key: string, hash: string, outcomes: ManifestOutcome[]): WorkStatus {
  const manifests: ManifestStatus[] = outcomes.map((o) => {
    const gv = o.manifest.apiVersion.split("/");
    const health = o.live !== undefined && o.applied ? assessHealth(o.live) : { health: "Unknown" as HealthWord, message: "" };
    // The member's generation rides along (as Karmada reflects it), so the control plane can tell
    // whether the member's controller has observed the spec that was applied.
    const liveStatus = (o.live as { status?: unknown } | undefined)?.status;
    const generation = o.live?.metadata.generation;
    const status = liveStatus !== null && typeof liveStatus === "object" && generation !== undefined ? { ...liveStatus, generation } : liveStatus;
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
      reason: o.reason,
      message: o.message || health.message,
      status: status === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(status)),
      ...(o.readyEndpoints === undefined ? {} : { readyEndpoints: o.readyEndpoints }),
    };
  });
  const failed = outcomes.filter((o) => !o.applied);
  const available = outcomes.length > 0 && manifests.every((m) => m.applied && m.health === Health.HEALTH_HEALTHY);
  return {
    workKey: key,
    observedHash: hash,
    applied: failed.length === 0,
    available,
    reason: failed[0]?.reason ?? "",
    message: failed.map((o) => `${o.manifest.kind}/${o.manifest.metadata.name}: ${o.message}`).join("; "),
    manifests,
    deleted: false,
  };
}
