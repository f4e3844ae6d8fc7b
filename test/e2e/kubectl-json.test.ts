import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { printedList, printedObject } from "./kubectl-json.ts";

const managed = [{ manager: "kubectl", operation: "Apply" }];

describe("printedObject: one object as `kubectl get -o json` prints it", () => {
  const cases: { name: string; obj: Record<string, unknown>; show?: boolean; want: Record<string, unknown> }[] = [
    {
      name: "managedFields dropped",
      obj: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", managedFields: managed }, data: { k: "v" } },
      want: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: { k: "v" } },
    },
    {
      name: "managedFields kept with --show-managed-fields",
      obj: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", managedFields: managed } },
      show: true,
      want: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", managedFields: managed } },
    },
    { name: "nothing to drop", obj: { apiVersion: "v1", kind: "Namespace", metadata: { name: "a" } }, want: { apiVersion: "v1", kind: "Namespace", metadata: { name: "a" } } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(printedObject(c.obj, c.show), c.want));
});

describe("printedList: a list as `kubectl get -o json` prints it", () => {
  const empty = { apiVersion: "v1", items: [], kind: "List", metadata: { resourceVersion: "" } };
  const cases: { name: string; pages: Parameters<typeof printedList>[0]; show?: boolean; want: Record<string, unknown> }[] = [
    { name: "no items", pages: [{ apiVersion: "apps/v1", kind: "DeploymentList", items: [] }], want: empty },
    { name: "items: null", pages: [{ apiVersion: "v1", kind: "PodList", items: null }], want: empty },
    {
      name: "a typed list's items get its apiVersion and kind, without managedFields",
      pages: [{ apiVersion: "apps/v1", kind: "DeploymentList", items: [{ metadata: { name: "web", managedFields: managed } }] }],
      want: { ...empty, items: [{ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" } }] },
    },
    {
      name: "a custom resource list's items keep theirs",
      pages: [{ apiVersion: "flotilla.dev/v1alpha1", kind: "ResourceBindingList", items: [{ apiVersion: "flotilla.dev/v1alpha1", kind: "ResourceBinding", metadata: { name: "a" } }] }],
      want: { ...empty, items: [{ apiVersion: "flotilla.dev/v1alpha1", kind: "ResourceBinding", metadata: { name: "a" } }] },
    },
    {
      name: "pages in order, managedFields kept when shown",
      pages: [
        { apiVersion: "v1", kind: "ConfigMapList", items: [{ metadata: { name: "a", managedFields: managed } }] },
        { apiVersion: "v1", kind: "ConfigMapList", items: [{ metadata: { name: "b" } }] },
      ],
      show: true,
      want: {
        ...empty,
        items: [
          { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", managedFields: managed } },
          { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "b" } },
        ],
      },
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(printedList(c.pages, c.show), c.want));
});
