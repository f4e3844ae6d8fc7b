import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../api/types.ts";
import { assessHealth } from "./health-words.ts";

function obj(apiVersion: string, kind: string, rest: Record<string, unknown> = {}, generation?: number): KubeObject {
  return { apiVersion, kind, metadata: { name: "x", namespace: "default", generation }, ...rest };
}

const cond = (type: string, status: string, reason = "", message = "") => ({ type, status, reason, message });

const deploy = (spec: Record<string, unknown>, status: Record<string, unknown>, generation = 2) =>
  obj("apps/v1", "Deployment", { spec, status }, generation);
const settled3 = { observedGeneration: 2, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 };

const cases: { name: string; obj: KubeObject; health: string; message: string }[] = [
  // ---- Deployment
  { name: "deployment settled", obj: deploy({ replicas: 3 }, settled3), health: "Healthy", message: "" },
  {
    name: "deployment without spec.replicas wants 1",
    obj: deploy({}, { observedGeneration: 2, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 }),
    health: "Healthy",
    message: "",
  },
  {
    name: "deployment scaled to zero with empty status",
    obj: deploy({ replicas: 0 }, { observedGeneration: 2 }),
    health: "Healthy",
    message: "",
  },
  {
    name: "deployment generation not observed yet",
    obj: deploy({ replicas: 3 }, { ...settled3, observedGeneration: 1 }),
    health: "Progressing",
    message: "waiting for generation 2 to be observed (at 1)",
  },
  {
    name: "deployment with no status yet",
    obj: deploy({ replicas: 3 }, {}),
    health: "Progressing",
    message: "waiting for generation 2 to be observed",
  },
  {
    name: "deployment short of available",
    obj: deploy({ replicas: 3 }, { ...settled3, availableReplicas: 2 }),
    health: "Progressing",
    message: "2/3 replicas available",
  },
  {
    name: "deployment rolling: updated reported first",
    obj: deploy({ replicas: 3 }, { ...settled3, updatedReplicas: 1, readyReplicas: 2 }),
    health: "Progressing",
    message: "1/3 replicas updated",
  },
  {
    name: "deployment with an old replica still there",
    obj: deploy({ replicas: 3 }, { ...settled3, replicas: 4 }),
    health: "Progressing",
    message: "1 old replicas pending termination",
  },
  {
    name: "deployment past its progress deadline",
    obj: deploy(
      { replicas: 3 },
      {
        ...settled3,
        availableReplicas: 1,
        conditions: [cond("Progressing", "False", "ProgressDeadlineExceeded", 'ReplicaSet "x-1" has timed out progressing.')],
      },
    ),
    health: "Unhealthy",
    message: 'progress deadline exceeded: ReplicaSet "x-1" has timed out progressing.',
  },
  {
    name: "deployment with a replica failure",
    obj: deploy(
      { replicas: 3 },
      { ...settled3, readyReplicas: 0, conditions: [cond("ReplicaFailure", "True", "FailedCreate", "quota exceeded")] },
    ),
    health: "Unhealthy",
    message: "replica failure: quota exceeded",
  },
  {
    name: "deployment deadline condition of an unobserved generation does not count",
    obj: deploy(
      { replicas: 3 },
      { ...settled3, observedGeneration: 1, conditions: [cond("Progressing", "False", "ProgressDeadlineExceeded")] },
    ),
    health: "Progressing",
    message: "waiting for generation 2 to be observed (at 1)",
  },
  {
    name: "Progressing=True is not a failure",
    obj: deploy({ replicas: 3 }, { ...settled3, conditions: [cond("Progressing", "True", "NewReplicaSetAvailable")] }),
    health: "Healthy",
    message: "",
  },
  {
    name: "a Deployment of another group is read by its conditions",
    obj: obj("example.com/v1", "Deployment", { status: { conditions: [cond("Ready", "True")] } }),
    health: "Healthy",
    message: "",
  },

  // ---- StatefulSet
  {
    name: "statefulset settled",
    obj: obj(
      "apps/v1",
      "StatefulSet",
      {
        spec: { replicas: 2 },
        status: {
          observedGeneration: 1,
          replicas: 2,
          currentReplicas: 2,
          updatedReplicas: 2,
          readyReplicas: 2,
          availableReplicas: 2,
        },
      },
      1,
    ),
    health: "Healthy",
    message: "",
  },
  {
    name: "statefulset mid-rollout: current short",
    obj: obj(
      "apps/v1",
      "StatefulSet",
      {
        spec: { replicas: 2 },
        status: {
          observedGeneration: 1,
          replicas: 2,
          currentReplicas: 1,
          updatedReplicas: 2,
          readyReplicas: 2,
          availableReplicas: 2,
        },
      },
      1,
    ),
    health: "Progressing",
    message: "1/2 replicas current",
  },
  {
    name: "statefulset not ready",
    obj: obj(
      "apps/v1",
      "StatefulSet",
      { spec: { replicas: 3 }, status: { observedGeneration: 1, replicas: 3, currentReplicas: 3, updatedReplicas: 3, readyReplicas: 1 } },
      1,
    ),
    health: "Progressing",
    message: "1/3 replicas ready",
  },
  {
    name: "statefulset with a partition is done when replicas - partition updated",
    obj: obj(
      "apps/v1",
      "StatefulSet",
      {
        spec: { replicas: 3, updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 2 } } },
        status: { observedGeneration: 1, replicas: 3, currentReplicas: 2, updatedReplicas: 1, readyReplicas: 3, availableReplicas: 3 },
      },
      1,
    ),
    health: "Healthy",
    message: "",
  },
  {
    name: "statefulset with a partition still updating",
    obj: obj(
      "apps/v1",
      "StatefulSet",
      {
        spec: { replicas: 3, updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 1 } } },
        status: { observedGeneration: 1, replicas: 3, currentReplicas: 2, updatedReplicas: 1, readyReplicas: 3, availableReplicas: 3 },
      },
      1,
    ),
    health: "Progressing",
    message: "1/2 replicas updated (partition 1)",
  },

  // ---- ReplicaSet
  {
    name: "replicaset without observedGeneration counts as current",
    obj: obj(
      "apps/v1",
      "ReplicaSet",
      { spec: { replicas: 2 }, status: { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 2 } },
      3,
    ),
    health: "Healthy",
    message: "",
  },
  {
    name: "replicaset with a stale observedGeneration",
    obj: obj(
      "apps/v1",
      "ReplicaSet",
      { spec: { replicas: 2 }, status: { observedGeneration: 2, replicas: 2, readyReplicas: 2, availableReplicas: 2 } },
      3,
    ),
    health: "Progressing",
    message: "waiting for generation 3 to be observed (at 2)",
  },
  {
    name: "replicaset short of ready",
    obj: obj("apps/v1", "ReplicaSet", { spec: { replicas: 2 }, status: { replicas: 2, readyReplicas: 1, availableReplicas: 1 } }, 1),
    health: "Progressing",
    message: "1/2 replicas ready",
  },

  // ---- DaemonSet
  {
    name: "daemonset settled",
    obj: obj(
      "apps/v1",
      "DaemonSet",
      {
        status: {
          observedGeneration: 4,
          desiredNumberScheduled: 3,
          currentNumberScheduled: 3,
          updatedNumberScheduled: 3,
          numberReady: 3,
          numberAvailable: 3,
        },
      },
      4,
    ),
    health: "Healthy",
    message: "",
  },
  {
    name: "daemonset rolling",
    obj: obj(
      "apps/v1",
      "DaemonSet",
      { status: { observedGeneration: 4, desiredNumberScheduled: 3, updatedNumberScheduled: 2, numberReady: 3, numberAvailable: 3 } },
      4,
    ),
    health: "Progressing",
    message: "2/3 pods updated",
  },
  {
    name: "daemonset generation not observed",
    obj: obj(
      "apps/v1",
      "DaemonSet",
      { status: { observedGeneration: 3, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberReady: 3, numberAvailable: 3 } },
      4,
    ),
    health: "Progressing",
    message: "waiting for generation 4 to be observed (at 3)",
  },

  // ---- Job
  {
    name: "job complete",
    obj: obj("batch/v1", "Job", { status: { succeeded: 1, conditions: [cond("Complete", "True")] } }),
    health: "Healthy",
    message: "",
  },
  {
    name: "job failed",
    obj: obj("batch/v1", "Job", {
      status: { failed: 6, conditions: [cond("Failed", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit")] },
    }),
    health: "Unhealthy",
    message: "job failed: Job has reached the specified backoff limit",
  },
  {
    name: "job running",
    obj: obj("batch/v1", "Job", { status: { active: 2, succeeded: 1 } }),
    health: "Progressing",
    message: "job running: 2 active, 1 succeeded, 0 failed",
  },
  {
    name: "job suspended",
    obj: obj("batch/v1", "Job", { status: { conditions: [cond("Suspended", "True", "JobSuspended")] } }),
    health: "Progressing",
    message: "job suspended",
  },

  // ---- Pod
  {
    name: "pod running and ready",
    obj: obj("v1", "Pod", { status: { phase: "Running", conditions: [cond("Ready", "True")] } }),
    health: "Healthy",
    message: "",
  },
  {
    name: "pod succeeded",
    obj: obj("v1", "Pod", { status: { phase: "Succeeded" } }),
    health: "Healthy",
    message: "",
  },
  {
    name: "pod failed",
    obj: obj("v1", "Pod", { status: { phase: "Failed", reason: "Evicted", message: "low on memory" } }),
    health: "Unhealthy",
    message: "pod failed: Evicted: low on memory",
  },
  {
    name: "pod running, not ready, crash looping",
    obj: obj("v1", "Pod", {
      status: {
        phase: "Running",
        conditions: [cond("Ready", "False")],
        containerStatuses: [{ name: "web", state: { waiting: { reason: "CrashLoopBackOff" } } }],
      },
    }),
    health: "Progressing",
    message: "pod running but not ready: container web waiting: CrashLoopBackOff",
  },
  {
    name: "pod pending",
    obj: obj("v1", "Pod", { status: { phase: "Pending" } }),
    health: "Progressing",
    message: "pod phase Pending",
  },

  // ---- Service
  {
    name: "load balancer with an address",
    obj: obj("v1", "Service", { spec: { type: "LoadBalancer" }, status: { loadBalancer: { ingress: [{ ip: "1.2.3.4" }] } } }),
    health: "Healthy",
    message: "",
  },
  {
    name: "load balancer waiting for an address",
    obj: obj("v1", "Service", { spec: { type: "LoadBalancer" }, status: { loadBalancer: {} } }),
    health: "Progressing",
    message: "waiting for a load balancer address",
  },
  {
    name: "ClusterIP service",
    obj: obj("v1", "Service", { spec: { type: "ClusterIP" }, status: { loadBalancer: {} } }),
    health: "Healthy",
    message: "",
  },

  // ---- PersistentVolumeClaim
  { name: "pvc bound", obj: obj("v1", "PersistentVolumeClaim", { status: { phase: "Bound" } }), health: "Healthy", message: "" },
  {
    name: "pvc lost",
    obj: obj("v1", "PersistentVolumeClaim", { status: { phase: "Lost" } }),
    health: "Unhealthy",
    message: "claim lost its volume",
  },
  {
    name: "pvc pending",
    obj: obj("v1", "PersistentVolumeClaim", { status: { phase: "Pending" } }),
    health: "Progressing",
    message: "claim phase Pending",
  },

  // ---- kinds that are healthy by existing
  { name: "namespace", obj: obj("v1", "Namespace"), health: "Healthy", message: "" },
  { name: "configmap", obj: obj("v1", "ConfigMap", { data: {} }), health: "Healthy", message: "" },
  { name: "secret", obj: obj("v1", "Secret"), health: "Healthy", message: "" },
  { name: "serviceaccount", obj: obj("v1", "ServiceAccount"), health: "Healthy", message: "" },
  { name: "clusterrole", obj: obj("rbac.authorization.k8s.io/v1", "ClusterRole"), health: "Healthy", message: "" },
  { name: "rolebinding", obj: obj("rbac.authorization.k8s.io/v1", "RoleBinding"), health: "Healthy", message: "" },

  // ---- any other kind
  {
    name: "custom resource Ready=True",
    obj: obj("example.com/v1", "Widget", { status: { conditions: [cond("Ready", "True")] } }),
    health: "Healthy",
    message: "",
  },
  {
    name: "custom resource Available=True",
    obj: obj("example.com/v1", "Widget", { status: { conditions: [cond("Available", "True")] } }),
    health: "Healthy",
    message: "",
  },
  {
    name: "custom resource Ready=False",
    obj: obj("example.com/v1", "Widget", { status: { conditions: [cond("Ready", "False", "Broken", "disk full")] } }),
    health: "Unhealthy",
    message: "Ready=False: disk full",
  },
  {
    name: "custom resource with Ready=True but Available=False",
    obj: obj("example.com/v1", "Widget", {
      status: { conditions: [cond("Ready", "True"), cond("Available", "False", "NoEndpoints")] },
    }),
    health: "Unhealthy",
    message: "Available=False: NoEndpoints",
  },
  {
    name: "custom resource Ready=Unknown",
    obj: obj("example.com/v1", "Widget", { status: { conditions: [cond("Ready", "Unknown")] } }),
    health: "Unknown",
    message: "no Ready or Available condition to read",
  },
  {
    name: "custom resource without status",
    obj: obj("example.com/v1", "Widget"),
    health: "Unknown",
    message: "no Ready or Available condition to read",
  },
  {
    name: "a core kind with no rule is read by its conditions",
    obj: obj("v1", "Endpoints"),
    health: "Unknown",
    message: "no Ready or Available condition to read",
  },
];

describe("assessHealth", () => {
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(assessHealth(c.obj), { health: c.health, message: c.message });
    });
  }
});
