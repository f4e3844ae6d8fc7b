import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster } from "../../shared/api/types.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import { silentLogger } from "../../shared/logger.ts";
import { BindingIndex } from "../caches/binding-index.ts";
import { bindingOf } from "../caches/binding-index.fixtures.ts";
import { CLUSTER_FINALIZER } from "./registration.ts";
import { FORCE_ANNOTATION, UnjoinController, unjoinDecision } from "./unjoin-controller.ts";

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

describe("UnjoinController.waitingOn", () => {
  it("counts the bindings whose status still lists the cluster, from the index", () => {
    const index = new BindingIndex();
    index.set(bindingOf({ name: "a", targets: ["m"], reporting: ["m"] }));
    index.set(bindingOf({ name: "b", reporting: ["m", "n"] })); // waiting for removal
    index.set(bindingOf({ name: "c", targets: ["m"] })); // nothing heard from m yet: nothing to wait for
    const ctl = new UnjoinController({ clusterNamed: () => undefined, reportingCount: (c) => index.reportingCount(c), rest: {} as KubeRest, log: silentLogger() });
    assert.equal(ctl.waitingOn("m"), 2);
    assert.equal(ctl.waitingOn("n"), 1);
    index.delete(bindingOf({ name: "b" }));
    assert.equal(ctl.waitingOn("n"), 0);
  });
});
