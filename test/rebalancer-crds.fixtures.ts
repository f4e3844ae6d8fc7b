// The WorkloadRebalancer CRD's test cases (test/crds.test.ts runs them against a real apiserver):
// Karmada's guide manifest with only the apiVersion changed, an object with every field and a full
// status, and objects the schema refuses with the field and the reason.
import type { KubernetesObject } from "@kubernetes/client-node";
import { API_VERSION } from "../shared/api/types.ts";

type Obj = Record<string, unknown>;
export type RebalancerFixture = KubernetesObject & Obj;

export const rebalancer = (name: string, spec: Obj | undefined): RebalancerFixture => ({
  apiVersion: API_VERSION,
  kind: "WorkloadRebalancer",
  metadata: { name },
  ...(spec === undefined ? {} : { spec }),
});

/** Karmada's guide (docs/tutorials/workload-rebalancer), apiVersion changed. */
export const karmadaRebalancerManifest = `apiVersion: ${API_VERSION}
kind: WorkloadRebalancer
metadata:
  name: demo
spec:
  workloads:
    - apiVersion: apps/v1
      kind: Deployment
      name: demo-deploy-1
      namespace: default
    - apiVersion: v1
      kind: ConfigMap
      name: demo-configmap
      namespace: default
  ttlSecondsAfterFinished: 60
`;

const web = { apiVersion: "apps/v1", kind: "Deployment", name: "web", namespace: "default" };

export const everyRebalancerField = rebalancer("every-field", {
  workloads: [web, { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name: "widgets.example.com" }],
  ttlSecondsAfterFinished: 0,
});

export const rebalancerStatus = {
  observedWorkloads: [
    { workload: { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name: "widgets.example.com" }, result: "Failed", reason: "ReferencedBindingNotFound" },
    { workload: web, result: "Successful" },
  ],
  observedGeneration: 1,
  finishTime: "2026-11-24T12:00:00Z",
};

interface BadCase {
  what: string;
  obj: RebalancerFixture;
  message: RegExp[];
}

export const badRebalancers: BadCase[] = [
  { what: "a WorkloadRebalancer without spec", obj: rebalancer("no-spec", undefined), message: [/spec: Required value/] },
  { what: "a WorkloadRebalancer without workloads", obj: rebalancer("no-workloads", { ttlSecondsAfterFinished: 5 }), message: [/spec\.workloads: Required value/] },
  { what: "an empty workload list", obj: rebalancer("empty", { workloads: [] }), message: [/spec\.workloads/, /at least 1 item/] },
  { what: "a workload without kind", obj: rebalancer("no-kind", { workloads: [{ apiVersion: "apps/v1", name: "web" }] }), message: [/spec\.workloads\[0\]\.kind: Required value/] },
  { what: "a workload without name", obj: rebalancer("no-name", { workloads: [{ apiVersion: "apps/v1", kind: "Deployment" }] }), message: [/spec\.workloads\[0\]\.name: Required value/] },
  { what: "an empty apiVersion", obj: rebalancer("empty-version", { workloads: [{ ...web, apiVersion: "" }] }), message: [/spec\.workloads\[0\]\.apiVersion/] },
  { what: "an apiVersion that is no group/version", obj: rebalancer("bad-version", { workloads: [{ ...web, apiVersion: "apps/v1/x" }] }), message: [/spec\.workloads\[0\]\.apiVersion/] },
  { what: "a name with a slash", obj: rebalancer("slash", { workloads: [{ ...web, name: "a/b" }] }), message: [/spec\.workloads\[0\]\.name/] },
  { what: "a namespace that is no DNS label", obj: rebalancer("bad-ns", { workloads: [{ ...web, namespace: "Not_A_Label" }] }), message: [/spec\.workloads\[0\]\.namespace/] },
  { what: "a negative ttlSecondsAfterFinished", obj: rebalancer("negative-ttl", { workloads: [web], ttlSecondsAfterFinished: -1 }), message: [/spec\.ttlSecondsAfterFinished/, /greater than or equal to 0/] },
];
