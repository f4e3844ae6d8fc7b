import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../shared/api/types.ts";
import { isScalable, retainMemberOwned, scaleTargetId } from "./retain.ts";

const deploy = (replicas: number): KubeObject => ({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "default" }, spec: { replicas, template: {} } });

describe("retainMemberOwned", () => {
  const cases: { name: string; desired: KubeObject; live: KubeObject | undefined; hpa: boolean; replicas: unknown }[] = [
    { name: "an HPA scales it: the member's replicas are kept", desired: deploy(2), live: deploy(7), hpa: true, replicas: 7 },
    { name: "no HPA: the rendered replicas are applied", desired: deploy(2), live: deploy(7), hpa: false, replicas: 2 },
    { name: "not created yet: the rendered replicas start it", desired: deploy(2), live: undefined, hpa: true, replicas: 2 },
    { name: "a kind an HPA does not scale through spec.replicas is left alone", desired: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, spec: { replicas: 1 } }, live: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, spec: { replicas: 9 } }, hpa: true, replicas: 1 },
  ];
  for (const c of cases) it(c.name, () => assert.equal((retainMemberOwned(c.desired, c.live, c.hpa).spec as { replicas?: unknown }).replicas, c.replicas));

  it("keeps every other field as rendered", () => {
    const out = retainMemberOwned(deploy(2), deploy(5), true);
    assert.deepEqual({ ...out, spec: { ...(out.spec as object), replicas: 2 } }, deploy(2));
  });
});

describe("scale targets", () => {
  it("names a target by namespace, group, kind and name; core and apps kinds differ", () => {
    assert.equal(scaleTargetId("ns", "apps/v1", "Deployment", "web"), "ns/apps/Deployment/web");
    assert.equal(isScalable("apps/v1", "StatefulSet"), true);
    assert.equal(isScalable("v1", "Pod"), false);
  });
});
