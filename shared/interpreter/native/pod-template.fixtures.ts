// Pod templates at the edges of Karmada's requirement and dependency rules, as Pods.
import { type NativeCase, obj } from "./native.fixtures.ts";

const pod = (spec: Record<string, unknown>) => obj("v1", "Pod", { name: "edge", namespace: "lab" }, { spec });
const requests = (r: Record<string, string>, limits?: Record<string, string>) => ({ name: "c", image: "c", resources: { requests: r, ...(limits ? { limits } : {}) } });

export const podTemplateCases: NativeCase[] = [
  {
    name: "a limit stands in for a missing request, an explicit request wins over its limit",
    op: "InterpretReplica",
    object: pod({ containers: [requests({ cpu: "100m" }, { cpu: "1", memory: "1Gi" })] }),
    want: { replica: 1, requires: { resourceRequest: { cpu: "100m", memory: "1Gi" }, namespace: "lab" } },
  },
  {
    name: "an init container's limit stands in for its request too",
    op: "InterpretReplica",
    object: pod({ initContainers: [{ name: "i", image: "i", resources: { limits: { memory: "2Gi" } } }], containers: [requests({ memory: "1Gi" })] }),
    want: { replica: 1, requires: { resourceRequest: { memory: "2Gi" }, namespace: "lab" } },
  },
  {
    name: "hugepages, ephemeral storage (bytes, no binary suffix fits 1.5G), pods and extended resources kept; an unknown plain name dropped",
    op: "InterpretReplica",
    object: pod({
      containers: [
        requests({ "hugepages-2Mi": "4Mi", "ephemeral-storage": "1G", pods: "1", "example.com/dongle": "2", widgets: "3" }),
        requests({ "example.com/dongle": "1", "ephemeral-storage": "500M" }),
      ],
    }),
    want: {
      replica: 1,
      requires: { resourceRequest: { "ephemeral-storage": "1500000000", "example.com/dongle": "3", "hugepages-2Mi": "4Mi", pods: "1" }, namespace: "lab" },
    },
  },
  {
    name: "fractions round up: 0.5m of cpu is 1m, 1.5 bytes is 2",
    op: "InterpretReplica",
    object: pod({ containers: [requests({ cpu: "0.5m", memory: "1.5" })] }),
    want: { replica: 1, requires: { resourceRequest: { cpu: "1m", memory: "2" }, namespace: "lab" } },
  },
  {
    name: "decimal memory adds up without float error (0.1Gi + 0.2Gi)",
    op: "InterpretReplica",
    object: pod({ containers: [requests({ memory: "0.1Gi", cpu: "0.1" }), requests({ memory: "0.2Gi", cpu: "0.2" })] }),
    want: { replica: 1, requires: { resourceRequest: { cpu: "300m", memory: "322122548" }, namespace: "lab" } },
  },
  {
    name: "tolerations alone make a node claim",
    op: "InterpretReplica",
    object: pod({ tolerations: [{ key: "spot", operator: "Exists" }], containers: [{ name: "c", image: "c" }] }),
    want: { replica: 1, requires: { nodeClaim: { tolerations: [{ key: "spot", operator: "Exists" }] }, namespace: "lab" } },
  },
  {
    name: "a preferred node affinity is no claim; a priority class alone is no requirement",
    op: "InterpretReplica",
    object: pod({
      priorityClassName: "low",
      affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: {} }] } },
      containers: [{ name: "c", image: "c" }],
    }),
    want: { replica: 1 },
  },
  {
    name: "a malformed quantity fails",
    op: "InterpretReplica",
    object: pod({ containers: [requests({ cpu: "lots" })] }),
    want: { error: "resource cpu: invalid quantity" },
  },
  {
    name: "Secrets of every volume plugin; the first source of a volume only",
    op: "InterpretDependency",
    object: pod({
      volumes: [
        { name: "a", azureFile: { secretName: "azure", shareName: "s" } },
        { name: "b", cephfs: { monitors: ["m"], secretRef: { name: "ceph" } } },
        { name: "c", cinder: { volumeID: "v", secretRef: { name: "cinder" } } },
        { name: "d", flexVolume: { driver: "d", secretRef: { name: "flex" } } },
        { name: "e", rbd: { monitors: ["m"], image: "i", secretRef: { name: "rbd" } } },
        { name: "f", scaleIO: { gateway: "g", system: "s", secretRef: { name: "scaleio" } } },
        { name: "g", iscsi: { targetPortal: "t", iqn: "q", lun: 0, secretRef: { name: "iscsi" } } },
        { name: "h", storageos: { volumeName: "v", secretRef: { name: "storageos" } } },
        { name: "i", csi: { driver: "d", nodePublishSecretRef: { name: "csi" } } },
        { name: "j", secret: { secretName: "plain" } },
      ],
      containers: [{ name: "c", image: "c" }],
    }),
    want: ["azure", "ceph", "cinder", "csi", "flex", "iscsi", "plain", "rbd", "scaleio", "storageos"].map((name) => ({ apiVersion: "v1", kind: "Secret", namespace: "lab", name })),
  },
];
