import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import { applyOrder, deleteOrder } from "./apply-order.ts";

/** A manifest written "apiVersion Kind name", so orders read as lists of such strings. */
function m(spec: string): KubeObject {
  const [apiVersion = "", kind = "", name = ""] = spec.split(" ");
  return { apiVersion, kind, metadata: { name } };
}
const show = (objs: KubeObject[]): string[] => objs.map((o) => `${o.apiVersion} ${o.kind} ${o.metadata.name}`);

const everyKnownKindInOrder = [
  "v1 Namespace ns",
  "apiextensions.k8s.io/v1 CustomResourceDefinition crd",
  "scheduling.k8s.io/v1 PriorityClass pc",
  "v1 ResourceQuota rq",
  "v1 LimitRange lr",
  "v1 ServiceAccount sa",
  "v1 Secret s",
  "v1 ConfigMap cm",
  "storage.k8s.io/v1 StorageClass sc",
  "v1 PersistentVolume pv",
  "v1 PersistentVolumeClaim pvc",
  "rbac.authorization.k8s.io/v1 ClusterRole cr",
  "rbac.authorization.k8s.io/v1 ClusterRoleBinding crb",
  "rbac.authorization.k8s.io/v1 Role r",
  "rbac.authorization.k8s.io/v1 RoleBinding rb",
  "v1 Service svc",
  "apps/v1 DaemonSet ds",
  "apps/v1 Deployment deploy",
  "apps/v1 ReplicaSet rs",
  "apps/v1 StatefulSet sts",
  "batch/v1 Job job",
  "batch/v1 CronJob cj",
  "example.com/v1 Widget w",
];

describe("applyOrder and deleteOrder", () => {
  const cases: { name: string; input: string[]; want: string[] }[] = [
    { name: "empty stays empty", input: [], want: [] },
    { name: "every known kind, given reversed, comes out in order with others last", input: everyKnownKindInOrder.toReversed(), want: everyKnownKindInOrder },
    {
      name: "a typical app: namespace, config and service before the deployment",
      input: ["apps/v1 Deployment web", "v1 Service web", "v1 ConfigMap web", "v1 Namespace team-a"],
      want: ["v1 Namespace team-a", "v1 ConfigMap web", "v1 Service web", "apps/v1 Deployment web"],
    },
    {
      name: "a CRD comes before its custom resources, which come after workloads",
      input: ["example.com/v1 Widget w", "apps/v1 Deployment d", "apiextensions.k8s.io/v1 CustomResourceDefinition widgets.example.com"],
      want: ["apiextensions.k8s.io/v1 CustomResourceDefinition widgets.example.com", "apps/v1 Deployment d", "example.com/v1 Widget w"],
    },
    {
      name: "ties keep input order",
      input: ["v1 ConfigMap b", "v1 Secret z", "v1 ConfigMap a", "v1 Secret y", "v1 ConfigMap c"],
      want: ["v1 Secret z", "v1 Secret y", "v1 ConfigMap b", "v1 ConfigMap a", "v1 ConfigMap c"],
    },
    {
      name: "unknown kinds keep their input order among themselves",
      input: ["example.com/v1 Zeta z", "networking.k8s.io/v1 Ingress i", "v1 Namespace n", "example.com/v1 Alpha a"],
      want: ["v1 Namespace n", "example.com/v1 Zeta z", "networking.k8s.io/v1 Ingress i", "example.com/v1 Alpha a"],
    },
    {
      name: "a CRD kind that shares a built-in kind's name sorts with the other custom resources",
      input: ["example.com/v1 Service x", "apps/v1 Deployment d", "v1 Service s"],
      want: ["v1 Service s", "apps/v1 Deployment d", "example.com/v1 Service x"],
    },
    {
      name: "any version of a known group counts",
      input: ["batch/v1beta1 CronJob old", "rbac.authorization.k8s.io/v1beta1 Role r"],
      want: ["rbac.authorization.k8s.io/v1beta1 Role r", "batch/v1beta1 CronJob old"],
    },
  ];
  for (const c of cases) {
    it(`apply: ${c.name}`, () => {
      const input = c.input.map(m);
      const before = show(input);
      assert.deepEqual(show(applyOrder(input)), c.want);
      assert.deepEqual(show(input), before, "the input array is not reordered");
    });
    it(`delete: ${c.name}, reversed`, () => {
      assert.deepEqual(show(deleteOrder(c.input.map(m))), c.want.toReversed());
    });
  }
});
