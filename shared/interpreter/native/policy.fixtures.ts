// Sample Ingress, PodDisruptionBudget and HorizontalPodAutoscaler objects through every operation.
import { item, type NativeCase, obj } from "./native.fixtures.ts";

const meta = { name: "front", namespace: "web" };
const ingress = (spec: Record<string, unknown> = {}, status?: Record<string, unknown>) =>
  obj("networking.k8s.io/v1", "Ingress", meta, { spec: { rules: [{ host: "a.example" }], ...spec }, ...(status ? { status } : {}) });
const lb = (...ingress: Record<string, unknown>[]) => ({ loadBalancer: ingress.length > 0 ? { ingress } : {} });

const pdb = (status?: Record<string, unknown>) =>
  obj("policy/v1", "PodDisruptionBudget", { ...meta, generation: 1 }, { spec: { minAvailable: 2, selector: { matchLabels: { app: "front" } } }, ...(status ? { status } : {}) });
const hpa = (status?: Record<string, unknown>) =>
  obj("autoscaling/v2", "HorizontalPodAutoscaler", meta, {
    spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "front" }, minReplicas: 1, maxReplicas: 10 },
    ...(status ? { status } : {}),
  });

export const policyCases: NativeCase[] = [
  // ---- Ingress
  { name: "reflects the whole status", op: "InterpretStatus", object: ingress({}, lb({ ip: "1.2.3.4" })), want: lb({ ip: "1.2.3.4" }) },
  {
    name: "every member's addresses once, hostnames first, ports merged",
    op: "AggregateStatus",
    object: ingress(),
    items: [
      item("m1", lb({ ip: "9.9.9.9" }, { hostname: "lb.example", ports: [{ port: 443, protocol: "TCP" }] })),
      item("m2", lb({ hostname: "lb.example", ports: [{ port: 80, protocol: "TCP" }, { port: 443, protocol: "TCP" }] }, { ip: "1.2.3.4" })),
    ],
    want: lb({ hostname: "lb.example", ports: [{ port: 80, protocol: "TCP" }, { port: 443, protocol: "TCP" }] }, { ip: "1.2.3.4" }, { ip: "9.9.9.9" }),
  },
  { name: "with an address", op: "InterpretHealth", object: ingress({}, lb({ ip: "1.2.3.4" })), want: true, word: "Healthy" },
  { name: "without an address", op: "InterpretHealth", object: ingress({}, lb()), want: false, word: "Progressing" },
  {
    name: "its TLS Secrets, each once (Karmada lists one per TLS entry; compared sorted and de-duplicated)",
    op: "InterpretDependency",
    object: ingress({ tls: [{ hosts: ["a.example"], secretName: "a-tls" }, { hosts: ["b.example"], secretName: "a-tls" }] }),
    want: [{ apiVersion: "v1", kind: "Secret", namespace: "web", name: "a-tls" }],
  },
  {
    name: "a TLS entry without a secretName (the controller's default certificate) needs nothing",
    op: "InterpretDependency",
    object: ingress({ tls: [{ hosts: ["a.example"] }] }),
    want: [],
    differs: "Karmada emits a dependency with an empty name and then refuses it, failing the operation",
  },

  // ---- PodDisruptionBudget
  {
    name: "reflects the counts and disrupted pods",
    op: "InterpretStatus",
    object: pdb({ observedGeneration: 1, disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, disruptedPods: { "front-1": "2026-11-24T08:00:00Z" }, conditions: [] }),
    want: { disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, disruptedPods: { "front-1": "2026-11-24T08:00:00Z" } },
  },
  {
    name: "counts summed, disrupted pods named by member",
    op: "AggregateStatus",
    object: pdb({ observedGeneration: 1 }),
    items: [
      item("m1", { disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, disruptedPods: { "front-1": "2026-11-24T08:00:00Z" } }),
      item("m2", { disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2, expectedPods: 2 }),
    ],
    want: { disruptedPods: { "m1/front-1": "2026-11-24T08:00:00Z" }, disruptionsAllowed: 1, currentHealthy: 5, desiredHealthy: 4, expectedPods: 5 },
  },
  { name: "enough healthy pods", op: "InterpretHealth", object: pdb({ currentHealthy: 2, desiredHealthy: 2 }), want: true, word: "Healthy" },
  { name: "too few healthy pods", op: "InterpretHealth", object: pdb({ currentHealthy: 1, desiredHealthy: 2 }), want: false, word: "Progressing" },
  { name: "no replicas", op: "InterpretReplica", object: pdb(), want: { notInterpreted: true } },

  // ---- HorizontalPodAutoscaler
  {
    name: "reflects current and desired replicas",
    op: "InterpretStatus",
    object: hpa({ currentReplicas: 3, desiredReplicas: 4, currentMetrics: [], conditions: [{ type: "AbleToScale", status: "True" }] }),
    want: { currentReplicas: 3, desiredReplicas: 4 },
  },
  {
    name: "current and desired replicas summed",
    op: "AggregateStatus",
    object: hpa({ currentReplicas: 1, desiredReplicas: 1, lastScaleTime: "2026-11-24T08:00:00Z" }),
    items: [item("m1", { currentReplicas: 3, desiredReplicas: 4 }), item("m2", { currentReplicas: 2, desiredReplicas: 2 }), item("m3")],
    want: { currentReplicas: 5, desiredReplicas: 6 },
  },
  { name: "no native health", op: "InterpretHealth", object: hpa({ currentReplicas: 1, desiredReplicas: 1 }), want: { notInterpreted: true }, word: "Unknown" },
  { name: "no native retain", op: "Retain", object: hpa(), observed: hpa(), want: { notInterpreted: true } },
];
