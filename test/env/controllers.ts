import { join } from "node:path";
import { binaryPath } from "./binaries.ts";
import { ManagedProcess } from "./managed-process.ts";
import type { ClusterPki } from "./pki.ts";

/** The only controllers the control cluster runs: templates stay templates (DESIGN §8). */
export const CONTROL_CLUSTER_CONTROLLERS = ["namespace", "garbagecollector", "serviceaccount-token"];

/**
 * Starts kube-controller-manager. controllers: the --controllers list; undefined runs the
 * defaults (what a member needs for Deployments to become Available).
 */
export function startKubeControllerManager(opts: {
  binDir: string;
  dir: string;
  name: string;
  kubeconfig: string;
  pki: ClusterPki;
  controllers?: string[];
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
      ...(opts.controllers ? [`--controllers=${opts.controllers.join(",")}`] : []),
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
