// Sample core (v1) objects through every operation, with Flotilla's answers.
import type { KubeObject } from "../../api/types.ts";
import { item, type NativeCase, obj } from "./native.fixtures.ts";

const meta = { name: "one", namespace: "apps" };
const podSpec = {
  serviceAccountName: "runner",
  containers: [{ name: "app", image: "app", resources: { requests: { cpu: "250m", memory: "64Mi" } }, volumeMounts: [{ name: "conf", mountPath: "/etc/app" }] }],
  initContainers: [{ name: "setup", image: "setup", volumeMounts: [{ name: "conf", mountPath: "/etc/app" }] }],
  volumes: [{ name: "conf", configMap: { name: "app-conf" } }],
};
const pod = (spec: Record<string, unknown> = {}, status?: Record<string, unknown>) =>
  obj("v1", "Pod", meta, { spec: { ...podSpec, ...spec }, ...(status ? { status } : {}) });
const tokenVolume = { name: "kube-api-access-x", projected: { sources: [{ serviceAccountToken: { path: "token" } }] } };
const tokenMount = { name: "kube-api-access-x", mountPath: "/var/run/secrets/kubernetes.io/serviceaccount", readOnly: true };
const memberPod = pod({
  nodeName: "node-3",
  volumes: [...podSpec.volumes, tokenVolume],
  containers: [{ ...podSpec.containers[0], volumeMounts: [...podSpec.containers[0]!.volumeMounts, tokenMount] }],
  initContainers: [{ ...podSpec.initContainers[0], volumeMounts: [...podSpec.initContainers[0]!.volumeMounts, tokenMount] }],
});
const ready = (s: "True" | "False") => [{ type: "Ready", status: s }];
const running = (name: string, isReady: boolean) => ({ name, ready: isReady, restartCount: 0, image: "app", imageID: "x", state: { running: { startedAt: "2026-11-24T08:00:00Z" } } });

const service = (spec: Record<string, unknown> = {}, status?: Record<string, unknown>) =>
  obj("v1", "Service", meta, { spec: { type: "LoadBalancer", selector: { app: "one" }, ports: [{ port: 80, protocol: "TCP" }], ...spec }, ...(status ? { status } : {}) });
const lb = (...ingress: Record<string, unknown>[]) => ({ loadBalancer: ingress.length > 0 ? { ingress } : {} });

const pv = (spec: Record<string, unknown> = {}, status?: Record<string, unknown>) =>
  obj("v1", "PersistentVolume", { name: "vol" }, { spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/data" }, ...spec }, ...(status ? { status } : {}) });
const pvc = (spec: Record<string, unknown> = {}, status?: Record<string, unknown>) =>
  obj("v1", "PersistentVolumeClaim", meta, { spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, ...spec }, ...(status ? { status } : {}) });

const serviceAccount = (rest: Record<string, unknown>): KubeObject => obj("v1", "ServiceAccount", meta, rest);
const secret = (rest: Record<string, unknown>): KubeObject => obj("v1", "Secret", meta, rest);

export const coreCases: NativeCase[] = [
  // ---- Pod
  { name: "one replica and what it needs", op: "InterpretReplica", object: pod(), want: { replica: 1, requires: { resourceRequest: { cpu: "250m", memory: "64Mi" }, namespace: "apps" } } },
  { name: "nothing to revise", op: "ReviseReplica", object: pod(), replicas: 3, want: { notInterpreted: true } },
  { name: "keeps the member's node, service account, token volume and its mounts", op: "Retain", object: pod(), observed: memberPod, want: memberPod },
  {
    name: "a member without volumes drops the desired ones",
    op: "Retain",
    object: pod(),
    observed: pod({ volumes: undefined, serviceAccountName: undefined, containers: [{ name: "app", image: "app" }], initContainers: [{ name: "setup", image: "setup" }] }),
    want: pod({
      volumes: undefined,
      serviceAccountName: undefined,
      containers: [{ name: "app", image: "app", resources: { requests: { cpu: "250m", memory: "64Mi" } } }],
      initContainers: [{ name: "setup", image: "setup" }],
    }),
  },
  {
    name: "the worst phase; containers keep ready and state",
    op: "AggregateStatus",
    object: pod({}, { phase: "Pending" }),
    items: [item("m1", { phase: "Running", conditions: ready("True"), containerStatuses: [running("app", true)] }), item("m2", { phase: "Succeeded" })],
    want: { phase: "Running", containerStatuses: [{ ready: true, state: { running: { startedAt: "2026-11-24T08:00:00Z" } } }] },
  },
  { name: "a member not yet reporting counts as Pending", op: "AggregateStatus", object: pod(), items: [item("m1", { phase: "Running" }), item("m2")], want: { phase: "Pending" } },
  { name: "Failed beats every other phase", op: "AggregateStatus", object: pod(), items: [item("m1", { phase: "Pending" }), item("m2", { phase: "Failed" })], want: { phase: "Failed" } },
  { name: "no members: the template's status stays", op: "AggregateStatus", object: pod({}, { phase: "Running" }), items: [], want: { phase: "Running" } },
  { name: "reflects the whole status", op: "InterpretStatus", object: pod({}, { phase: "Running", podIP: "10.0.0.1" }), want: { phase: "Running", podIP: "10.0.0.1" } },
  { name: "running and ready", op: "InterpretHealth", object: pod({}, { phase: "Running", conditions: ready("True") }), want: true, word: "Healthy" },
  { name: "running, not ready", op: "InterpretHealth", object: pod({}, { phase: "Running", conditions: ready("False") }), want: false, word: "Progressing" },
  { name: "succeeded", op: "InterpretHealth", object: pod({}, { phase: "Succeeded" }), want: true, word: "Healthy" },
  { name: "failed", op: "InterpretHealth", object: pod({}, { phase: "Failed" }), want: false, word: "Unhealthy" },
  {
    name: "its references; the default service account is not one",
    op: "InterpretDependency",
    object: pod({ serviceAccountName: "default" }),
    want: [{ apiVersion: "v1", kind: "ConfigMap", namespace: "apps", name: "app-conf" }],
  },
  {
    name: "the deprecated serviceAccount field is not read",
    op: "InterpretDependency",
    object: pod({ serviceAccountName: undefined, serviceAccount: "legacy", volumes: [] }),
    want: [],
  },

  // ---- Service
  { name: "no replicas", op: "InterpretReplica", object: service(), want: { notInterpreted: true } },
  {
    name: "keeps the member's cluster IP and health check node port",
    op: "Retain",
    object: service({ externalTrafficPolicy: "Local" }),
    observed: service({ externalTrafficPolicy: "Local", clusterIP: "10.96.0.7", clusterIPs: ["10.96.0.7"], healthCheckNodePort: 31000 }),
    want: service({ externalTrafficPolicy: "Local", clusterIP: "10.96.0.7", healthCheckNodePort: 31000 }),
  },
  { name: "reflects the load balancer of a LoadBalancer Service", op: "InterpretStatus", object: service({}, { ...lb({ ip: "1.2.3.4" }), conditions: [] }), want: lb({ ip: "1.2.3.4" }) },
  { name: "reflects nothing for a ClusterIP Service", op: "InterpretStatus", object: service({ type: "ClusterIP" }, lb()), want: null },
  {
    name: "every member's addresses once, hostnames first, ports merged",
    op: "AggregateStatus",
    object: service(),
    items: [
      item("m1", lb({ ip: "5.6.7.8" }, { hostname: "b.example", ports: [{ port: 80, protocol: "TCP" }] })),
      item("m2", lb({ ip: "1.2.3.4", ipMode: "VIP" }, { hostname: "b.example", ports: [{ port: 443, protocol: "TCP" }] }, { ip: "1.2.3.4" })),
      item("m3"),
    ],
    want: lb({ hostname: "b.example", ports: [{ port: 80, protocol: "TCP" }, { port: 443, protocol: "TCP" }] }, { ip: "1.2.3.4", ipMode: "VIP" }, { ip: "1.2.3.4" }, { ip: "5.6.7.8" }),
  },
  { name: "no addresses yet", op: "AggregateStatus", object: service(), items: [item("m1", lb())], want: lb() },
  { name: "a ClusterIP Service's status is not summed", op: "AggregateStatus", object: service({ type: "ClusterIP" }, {}), items: [item("m1", lb({ ip: "1.2.3.4" }))], want: {} },
  { name: "a load balancer with an address", op: "InterpretHealth", object: service({}, lb({ hostname: "a.example" })), want: true, word: "Healthy" },
  { name: "a load balancer waiting for an address", op: "InterpretHealth", object: service({}, lb()), want: false, word: "Progressing" },
  { name: "a ClusterIP Service", op: "InterpretHealth", object: service({ type: "ClusterIP" }), want: true, word: "Healthy" },
  { name: "no dependencies", op: "InterpretDependency", object: service(), want: { notInterpreted: true } },

  // ---- PersistentVolume
  {
    name: "keeps the member's claim binding",
    op: "Retain",
    object: pv(),
    observed: pv({ claimRef: { kind: "PersistentVolumeClaim", namespace: "apps", name: "one", uid: "u" } }),
    want: pv({ claimRef: { kind: "PersistentVolumeClaim", namespace: "apps", name: "one", uid: "u" } }),
  },
  {
    name: "the worst phase (Pending for a member not yet reporting)",
    op: "AggregateStatus",
    object: pv({}, { phase: "Available" }),
    items: [item("m1", { phase: "Bound" }), item("m2")],
    want: { phase: "Pending" },
  },
  { name: "Available before Bound", op: "AggregateStatus", object: pv(), items: [item("m1", { phase: "Bound" }), item("m2", { phase: "Available" })], want: { phase: "Available" } },
  { name: "no native health", op: "InterpretHealth", object: pv({}, { phase: "Bound" }), want: { notInterpreted: true }, word: "Unknown" },

  // ---- PersistentVolumeClaim
  { name: "keeps the member's volume name", op: "Retain", object: pvc(), observed: pvc({ volumeName: "pvc-123" }), want: pvc({ volumeName: "pvc-123" }) },
  { name: "Bound when every member is", op: "AggregateStatus", object: pvc(), items: [item("m1", { phase: "Bound" }), item("m2", { phase: "Bound" })], want: { phase: "Bound" } },
  { name: "Lost when any member is", op: "AggregateStatus", object: pvc(), items: [item("m1", { phase: "Pending" }), item("m2", { phase: "Lost" }), item("m3", { phase: "Bound" })], want: { phase: "Lost" } },
  { name: "Pending when a member is", op: "AggregateStatus", object: pvc(), items: [item("m1", { phase: "Pending" }), item("m2", { phase: "Bound" })], want: { phase: "Pending" } },
  { name: "bound", op: "InterpretHealth", object: pvc({}, { phase: "Bound" }), want: true, word: "Healthy" },
  { name: "pending", op: "InterpretHealth", object: pvc({}, { phase: "Pending" }), want: false, word: "Progressing" },

  // ---- ServiceAccount and Secret
  {
    name: "keeps the member's token secrets next to the desired ones",
    op: "Retain",
    object: serviceAccount({ secrets: [{ name: "mine" }], imagePullSecrets: [{ name: "regcred" }] }),
    observed: serviceAccount({ secrets: [{ name: "runner-token-x" }, { name: "mine" }], imagePullSecrets: [{ name: "runner-dockercfg-y" }] }),
    want: serviceAccount({ secrets: [{ name: "mine" }, { name: "runner-token-x" }], imagePullSecrets: [{ name: "regcred" }, { name: "runner-dockercfg-y" }] }),
  },
  {
    name: "keeps a service account token's generated data",
    op: "Retain",
    object: secret({ type: "kubernetes.io/service-account-token", metadata: { ...meta, annotations: { "kubernetes.io/service-account.name": "runner" } } }),
    observed: secret({ type: "kubernetes.io/service-account-token", data: { token: "dG9r" } }),
    want: secret({ type: "kubernetes.io/service-account-token", metadata: { ...meta, annotations: { "kubernetes.io/service-account.name": "runner" } }, data: { token: "dG9r" } }),
  },
  { name: "an Opaque Secret's data is the desired one", op: "Retain", object: secret({ type: "Opaque", data: { a: "YQ==" } }), observed: secret({ type: "Opaque", data: { a: "Yg==" } }), want: secret({ type: "Opaque", data: { a: "YQ==" } }) },
];
