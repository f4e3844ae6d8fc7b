import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster } from "../../shared/api/types.ts";
import { CLUSTER_FINALIZER } from "./registration.ts";
import { FORCE_ANNOTATION, unjoinDecision } from "./unjoin-controller.ts";

const cluster = (o: { deleting?: boolean; finalizer?: boolean; force?: boolean }): Cluster => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "Cluster",
  metadata: {
    name: "m",
    ...(o.deleting ? { deletionTimestamp: "2026-11-22T10:00:00Z" } : {}),
    ...(o.finalizer ? { finalizers: [CLUSTER_FINALIZER] } : {}),
    ...(o.force ? { annotations: { [FORCE_ANNOTATION]: "true" } } : {}),
  },
  spec: {},
});

describe("unjoinDecision", () => {
  const cases: { name: string; c: Cluster; waiting: number; want: string }[] = [
    { name: "a live cluster", c: cluster({ finalizer: true }), waiting: 3, want: "nothing" },
    { name: "a live cluster made by hand gets the finalizer", c: cluster({}), waiting: 0, want: "add" },
    { name: "deleting without our finalizer", c: cluster({ deleting: true }), waiting: 3, want: "nothing" },
    { name: "deleting while bindings wait on its agent", c: cluster({ deleting: true, finalizer: true }), waiting: 2, want: "wait" },
    { name: "deleting and nothing left there", c: cluster({ deleting: true, finalizer: true }), waiting: 0, want: "release" },
    { name: "forced: released whatever waits", c: cluster({ deleting: true, finalizer: true, force: true }), waiting: 5, want: "release" },
  ];
  for (const c of cases) it(c.name, () => assert.equal(unjoinDecision(c.c, c.waiting), c.want));
});
