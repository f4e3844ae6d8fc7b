import { join } from "node:path";
import { binaryPath } from "./binaries.ts";
import { ManagedProcess } from "./managed-process.ts";
import type { ClusterPki } from "./pki.ts";

/** The only controllers the control cluster runs: templates stay templates (DESIGN §8). */
export const CONTROL_CLUSTER_CONTROLLERS = ["namespace", "garbagecollector", "serviceaccount-token"];

/**
 * What a member runs: the controllers some test relies on, and no others (no volumes, CSRs,
 * DaemonSets, StatefulSets, CronJobs, PDBs or ReplicationControllers: nothing in the tests makes
 * them, and each costs the member informers and CPU). Add a controller here when a test needs one.
 */
export const MEMBER_CLUSTER_CONTROLLERS = [
  // Deployments become Available: ReplicaSets, then Pods (kwok runs them).
  "deployment",
  "replicaset",
  // A deleted Deployment takes its ReplicaSets and Pods; a deleted namespace its contents.
  "garbagecollector",
  "namespace",
  // Every namespace's default ServiceAccount (pods are admitted; waitUntilMemberReady), token
  // Secrets, and the kube-root-ca.crt ConfigMap: what a real namespace holds that nobody applied
  // (the agent's unmanaged contents).
  "serviceaccount",
  "serviceaccount-token",
  "root-ca-cert-publisher",
  // A Service's Endpoints and EndpointSlices (service-endpoints.test.ts; unmanaged contents).
  "endpoint",
  "endpointslice",
  // Node health and taints, as in a real cluster; pods of gone Nodes are collected.
  "nodelifecycle",
  "taint-eviction-controller",
  "podgc",
  // A member's own HPAs (never-destroy.test.ts's minReplicas; autoscaling with metrics).
  "horizontalpodautoscaling",
  // Jobs propagated to members (interpreter.test.ts).
  "job",
  // The ResourceQuotas of a FederatedResourceQuota and their usage (federated-resource-quota.test.ts).
  "resourcequota",
];

/** Starts kube-controller-manager with these controllers (the --controllers list). */
export function startKubeControllerManager(opts: {
  binDir: string;
  dir: string;
  name: string;
  kubeconfig: string;
  pki: ClusterPki;
  controllers: string[];
}): ManagedProcess {
  return ManagedProcess.start({
    name: `${opts.name}-kube-controller-manager`,
    command: binaryPath(opts.binDir, "kube-controller-manager"),
    args: [
      `--kubeconfig=${opts.kubeconfig}`,
      `--authentication-kubeconfig=${opts.kubeconfig}`,
      `--authorization-kubeconfig=${opts.kubeconfig}`,
      `--service-account-private-key-file=${opts.pki.serviceAccountKey}`,
      `--root-ca-file=${opts.pki.caCert}`,
      "--leader-elect=false",
      "--bind-address=127.0.0.1",
      "--secure-port=0",
      "--profiling=false",
      // The default client limit (20/s) makes a member take ~45 s to run 200 Deployments.
      "--kube-api-qps=200",
      "--kube-api-burst=400",
      `--controllers=${opts.controllers.join(",")}`,
    ],
    logFile: join(opts.dir, "kube-controller-manager.log"),
  });
}

/** Starts kube-scheduler (kwok does not schedule pods). */
export function startKubeScheduler(opts: { binDir: string; dir: string; name: string; kubeconfig: string }): ManagedProcess {
  return ManagedProcess.start({
    name: `${opts.name}-kube-scheduler`,
    command: binaryPath(opts.binDir, "kube-scheduler"),
    args: [
      `--kubeconfig=${opts.kubeconfig}`,
      `--authentication-kubeconfig=${opts.kubeconfig}`,
      `--authorization-kubeconfig=${opts.kubeconfig}`,
      "--leader-elect=false",
      "--bind-address=127.0.0.1",
      "--secure-port=0",
      "--profiling=false",
      "--kube-api-qps=200",
      "--kube-api-burst=400",
    ],
    logFile: join(opts.dir, "kube-scheduler.log"),
  });
}
