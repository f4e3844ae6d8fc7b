import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import { cleanTemplate } from "./clean-template.ts";

const serverMetadata = {
  uid: "0b1c",
  resourceVersion: "42",
  generation: 3,
  creationTimestamp: "2024-01-01T00:00:00Z",
  deletionTimestamp: "2024-01-02T00:00:00Z",
  deletionGracePeriodSeconds: 30,
  managedFields: [{ manager: "kubectl", operation: "Apply" }],
  ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "o", uid: "1" }],
  selfLink: "/api/v1/namespaces/default/configmaps/c",
  finalizers: ["example.com/f"],
};

interface Case {
  name: string;
  input: KubeObject;
  want: KubeObject;
}

const cases: Case[] = [
  {
    name: "drops server-set metadata, last-applied annotation and status; keeps name, namespace, labels, other annotations",
    input: {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: {
        name: "web",
        namespace: "default",
        labels: { app: "web" },
        annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}", team: "a" },
        ...serverMetadata,
      },
      spec: { replicas: 3, selector: { matchLabels: { app: "web" } } },
      status: { readyReplicas: 3 },
    },
    want: {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "default", labels: { app: "web" }, annotations: { team: "a" } },
      spec: { replicas: 3, selector: { matchLabels: { app: "web" } } },
    },
  },
  {
    name: "drops an annotations map that only held last-applied-configuration",
    input: {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}" } },
      data: { k: "v" },
    },
    want: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { k: "v" } },
  },
  {
    name: "keeps an empty annotations map the user wrote",
    input: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", annotations: {} } },
    want: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", annotations: {} } },
  },
  {
    name: "Service: drops allocated clusterIP and clusterIPs, and nodePort when the type defaults to ClusterIP",
    input: {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", namespace: "default" },
      spec: { clusterIP: "10.0.0.7", clusterIPs: ["10.0.0.7"], ports: [{ port: 80, nodePort: 30080 }], selector: { app: "web" } },
      status: { loadBalancer: {} },
    },
    want: {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", namespace: "default" },
      spec: { ports: [{ port: 80 }], selector: { app: "web" } },
    },
  },
  {
    name: "Service: a headless service keeps clusterIP None",
    input: {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "db" },
      spec: { type: "ClusterIP", clusterIP: "None", clusterIPs: ["None"], ports: [{ port: 5432 }] },
    },
    want: {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "db" },
      spec: { type: "ClusterIP", clusterIP: "None", clusterIPs: ["None"], ports: [{ port: 5432 }] },
    },
  },
  {
    name: "Service: NodePort type keeps its nodePorts but drops clusterIP",
    input: {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "np" },
      spec: { type: "NodePort", clusterIP: "10.0.0.8", ports: [{ port: 80, nodePort: 30080 }] },
    },
    want: { apiVersion: "v1", kind: "Service", metadata: { name: "np" }, spec: { type: "NodePort", ports: [{ port: 80, nodePort: 30080 }] } },
  },
  {
    name: "Service: LoadBalancer type keeps its nodePorts",
    input: {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "lb" },
      spec: { type: "LoadBalancer", clusterIPs: ["10.0.0.9", "fd00::9"], ports: [{ port: 443, nodePort: 31443 }] },
    },
    want: { apiVersion: "v1", kind: "Service", metadata: { name: "lb" }, spec: { type: "LoadBalancer", ports: [{ port: 443, nodePort: 31443 }] } },
  },
  {
    name: "a CRD kind named Service in another group is left alone",
    input: { apiVersion: "example.com/v1", kind: "Service", metadata: { name: "x" }, spec: { clusterIP: "keep" } },
    want: { apiVersion: "example.com/v1", kind: "Service", metadata: { name: "x" }, spec: { clusterIP: "keep" } },
  },
  {
    name: "Job: drops generated selector, manualSelector and controller-uid labels; keeps job-name labels",
    input: {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: {
        name: "pi",
        namespace: "default",
        labels: { "controller-uid": "u1", "batch.kubernetes.io/controller-uid": "u1", "job-name": "pi", app: "pi" },
      },
      spec: {
        manualSelector: false,
        selector: { matchLabels: { "batch.kubernetes.io/controller-uid": "u1" } },
        template: {
          metadata: {
            labels: { "controller-uid": "u1", "batch.kubernetes.io/controller-uid": "u1", "batch.kubernetes.io/job-name": "pi", "job-name": "pi" },
          },
          spec: { containers: [{ name: "pi", image: "perl" }], restartPolicy: "Never" },
        },
      },
      status: { succeeded: 1 },
    },
    want: {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "pi", namespace: "default", labels: { "job-name": "pi", app: "pi" } },
      spec: {
        template: {
          metadata: { labels: { "batch.kubernetes.io/job-name": "pi", "job-name": "pi" } },
          spec: { containers: [{ name: "pi", image: "perl" }], restartPolicy: "Never" },
        },
      },
    },
  },
  {
    name: "Job: drops a labels map that only held controller-uid labels",
    input: {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "j", labels: { "controller-uid": "u" } },
      spec: { template: { metadata: { labels: { "batch.kubernetes.io/controller-uid": "u" } }, spec: {} } },
    },
    want: { apiVersion: "batch/v1", kind: "Job", metadata: { name: "j" }, spec: { template: { metadata: {}, spec: {} } } },
  },
  {
    name: "ServiceAccount: drops the token secrets list",
    input: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "sa" }, secrets: [{ name: "sa-token-x" }], imagePullSecrets: [{ name: "reg" }] },
    want: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "sa" }, imagePullSecrets: [{ name: "reg" }] },
  },
  {
    name: "PersistentVolumeClaim: drops volumeName and binding annotations, keeps the rest",
    input: {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: {
        name: "data",
        annotations: {
          "pv.kubernetes.io/bind-completed": "yes",
          "pv.kubernetes.io/bound-by-controller": "yes",
          "volume.kubernetes.io/selected-node": "node-1",
          backup: "daily",
        },
      },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, volumeName: "pvc-123" },
      status: { phase: "Bound" },
    },
    want: {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: "data", annotations: { backup: "daily" } },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
    },
  },
  {
    name: "an already clean object comes back equal",
    input: { apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a", labels: { env: "prod" } } },
    want: { apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a", labels: { env: "prod" } } },
  },
];

describe("cleanTemplate", () => {
  for (const c of cases) {
    it(c.name, () => {
      const before = structuredClone(c.input);
      const got = cleanTemplate(c.input);
      assert.deepEqual(got, c.want);
      assert.deepEqual(c.input, before, "the input is not mutated");
    });
  }

  it("returns a copy that shares nothing with the input", () => {
    const input: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", labels: { a: "1" } }, data: { k: "v" } };
    const got = cleanTemplate(input);
    (got.metadata.labels as Record<string, string>).a = "2";
    (got.data as Record<string, string>).k = "w";
    assert.deepEqual(input, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", labels: { a: "1" } }, data: { k: "v" } });
  });
});
