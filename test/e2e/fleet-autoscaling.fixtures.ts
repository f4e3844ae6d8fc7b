// What the FederatedHPA e2e tests share: the short periods they run Flotilla with, and, for the
// tests on real metrics, a Deployment whose pods request 500m CPU, a Divided policy over member1
// and member2, and a FederatedHPA on 50% CPU with no scale-down window (so a test need not wait
// five minutes).
import type { FlotillaOptions } from "../env/flotilla.ts";

/**
 * Flotilla's autoscaling periods, shortened so that a test waits for what it checks and not for
 * a timer: the leader runs each FederatedHPA every second instead of every 15 s
 * (--horizontal-pod-autoscaler-sync-period), and agents summarise the pods every 2 s instead of
 * every 15 s (--metrics-interval; metrics-server's samples change every 10 s, test/env/metrics-server.ts).
 */
export const SHORT_AUTOSCALING_PERIODS: Pick<FlotillaOptions, "controlPlaneArgs" | "agentArgs"> = {
  controlPlaneArgs: ["--horizontal-pod-autoscaler-sync-period=1s"],
  agentArgs: ["--metrics-interval=2s"],
};

/** A Deployment `name` of `replicas` pods labelled `labels`, each requesting 500m CPU. */
export function cpuDeployment(ns: string, name: string, labels: Record<string, string>, replicas: number): string {
  return JSON.stringify({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: ns, labels },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "busybox", resources: { requests: { cpu: "500m", memory: "32Mi" } } }] } },
    },
  });
}

/** A PropagationPolicy dividing Deployment `name` over member1 and member2 by weight. */
export function dividedPolicy(ns: string, name: string): string {
  return JSON.stringify({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "PropagationPolicy",
    metadata: { name, namespace: ns },
    spec: {
      resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name }],
      placement: { clusterAffinity: { clusterNames: ["member1", "member2"] }, replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted" } },
    },
  });
}

/** A FederatedHPA on Deployment `name`: 50% CPU utilization, between min and max, scale-down window 0 s. */
export function cpuFederatedHpa(ns: string, name: string, minReplicas: number, maxReplicas: number): string {
  return JSON.stringify({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "FederatedHPA",
    metadata: { name, namespace: ns },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name },
      minReplicas,
      maxReplicas,
      metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } } }],
      behavior: { scaleDown: { stabilizationWindowSeconds: 0 } },
    },
  });
}
