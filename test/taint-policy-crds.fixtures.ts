// The ClusterTaintPolicy CRD's test cases (test/crds.test.ts runs them against a real apiserver):
// a Karmada-shaped manifest with only the apiVersion changed, and the objects the schema refuses
// (what Karmada's webhook refuses, plus what its types do not allow) with the field and the reason.
import type { KubernetesObject } from "@kubernetes/client-node";
import { API_VERSION } from "../shared/api/types.ts";

type Obj = Record<string, unknown>;
export type TaintPolicyFixture = KubernetesObject & Obj;

const taintPolicy = (name: string, spec: Obj | undefined): TaintPolicyFixture => ({
  apiVersion: API_VERSION,
  kind: "ClusterTaintPolicy",
  metadata: { name },
  ...(spec === undefined ? {} : { spec }),
});

/** Karmada's ClusterTaintPolicy of its failover guide's shape, apiVersion changed. */
export const karmadaTaintPolicyManifest = `apiVersion: ${API_VERSION}
kind: ClusterTaintPolicy
metadata:
  name: detect-cluster-notready
spec:
  targetClusters:
    clusterNames:
      - member1
      - member2
    labelSelector:
      matchLabels:
        env: prod
    fieldSelector:
      matchExpressions:
        - key: region
          operator: In
          values: [eu-1]
  addOnConditions:
    - conditionType: Ready
      operator: NotIn
      statusValues:
        - "True"
  removeOnConditions:
    - conditionType: Ready
      operator: In
      statusValues:
        - "True"
  taints:
    - key: cluster.karmada.io/not-ready
      effect: NoSchedule
    - key: cluster.karmada.io/not-ready
      value: "yes"
      effect: NoExecute
`;

const taint = { key: "not-ready", effect: "NoSchedule" };

export const badTaintPolicies: { what: string; obj: TaintPolicyFixture; message: RegExp[] }[] = [
  { what: "a ClusterTaintPolicy without spec", obj: taintPolicy("no-spec", undefined), message: [/spec: Required value/] },
  { what: "a ClusterTaintPolicy without taints", obj: taintPolicy("no-taints", { addOnConditions: [] }), message: [/spec\.taints: Required value/] },
  { what: "an empty taint list", obj: taintPolicy("empty-taints", { taints: [] }), message: [/spec\.taints/, /at least 1 item/] },
  { what: "two taints of one key and effect (Karmada's webhook)", obj: taintPolicy("twice", { taints: [taint, { ...taint, value: "x" }] }), message: [/spec\.taints/, /same key and effect/] },
  { what: "a PreferNoSchedule taint", obj: taintPolicy("prefer", { taints: [{ key: "k", effect: "PreferNoSchedule" }] }), message: [/spec\.taints\[0\]\.effect: Unsupported value/] },
  { what: "a taint key that is no qualified name", obj: taintPolicy("bad-key", { taints: [{ key: "no spaces", effect: "NoSchedule" }] }), message: [/spec\.taints\[0\]\.key/] },
  { what: "a taint without effect", obj: taintPolicy("no-effect", { taints: [{ key: "k" }] }), message: [/spec\.taints\[0\]\.effect: Required value/] },
  { what: "an unknown operator", obj: taintPolicy("bad-op", { taints: [taint], addOnConditions: [{ conditionType: "Ready", operator: "Exists", statusValues: ["True"] }] }), message: [/spec\.addOnConditions\[0\]\.operator: Unsupported value/] },
  { what: "a status value that is no condition status", obj: taintPolicy("bad-status", { taints: [taint], removeOnConditions: [{ conditionType: "Ready", operator: "In", statusValues: ["Yes"] }] }), message: [/spec\.removeOnConditions\[0\]\.statusValues\[0\]: Unsupported value/] },
  { what: "a condition without statusValues", obj: taintPolicy("no-values", { taints: [taint], addOnConditions: [{ conditionType: "Ready", operator: "In" }] }), message: [/spec\.addOnConditions\[0\]\.statusValues: Required value/] },
  { what: "an unknown targetClusters field key", obj: taintPolicy("bad-field", { taints: [taint], targetClusters: { fieldSelector: { matchExpressions: [{ key: "country", operator: "In", values: ["x"] }] } } }), message: [/spec\.targetClusters\.fieldSelector\.matchExpressions\[0\]\.key: Unsupported value/] },
];
