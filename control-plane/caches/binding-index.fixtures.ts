// Bindings for index and per-event tests: only what the index reads.
import { API_VERSION, LABELS, type ResourceBinding } from "../../shared/api/types.ts";

export interface BindingShape {
  /** The Deployment's name (its template key is apps/v1/Deployment/<ns>/<name>). */
  name: string;
  namespace?: string;
  targets?: string[];
  evicting?: string[];
  reporting?: string[];
  /** The policy's name; with policyNamespace for a PropagationPolicy. */
  policy?: string;
  policyNamespace?: string;
}

export function bindingOf(s: BindingShape): ResourceBinding {
  const namespace = s.namespace ?? "default";
  const labels: Record<string, string> = {};
  if (s.policy !== undefined) labels[LABELS.policyName] = s.policy;
  if (s.policyNamespace !== undefined) labels[LABELS.policyNamespace] = s.policyNamespace;
  return {
    apiVersion: API_VERSION,
    kind: "ResourceBinding",
    metadata: { name: `${s.name}-deployment`, namespace, labels },
    spec: {
      resource: { apiVersion: "apps/v1", kind: "Deployment", namespace, name: s.name },
      clusters: (s.targets ?? []).map((name) => ({ name })),
      ...(s.evicting ? { gracefulEvictionTasks: s.evicting.map((fromCluster) => ({ fromCluster, reason: "ClusterNotReady", creationTimestamp: "2026-11-23T10:00:00Z" })) } : {}),
    },
    ...(s.reporting ? { status: { aggregatedStatus: s.reporting.map((clusterName) => ({ clusterName, applied: true })) } } : {}),
  };
}

/** The template key of a fixture binding. */
export const keyOf = (name: string, namespace = "default") => `apps/v1/Deployment/${namespace}/${name}`;
