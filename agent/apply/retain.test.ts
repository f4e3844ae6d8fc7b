import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import { InterpreterError, type KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import { isScalable, retainByCustomization, retainMemberOwned, scaleTargetId } from "./retain.ts";

const deploy = (replicas: number): KubeObject => ({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "default" }, spec: { replicas, template: {} } });

describe("retainMemberOwned", () => {
  const cases: { name: string; desired: KubeObject; live: KubeObject | undefined; hpa: boolean | undefined; replicas: unknown }[] = [
    { name: "an HPA scales it: the member's replicas are kept", desired: deploy(2), live: deploy(7), hpa: true, replicas: 7 },
    { name: "no HPA: the rendered replicas are applied", desired: deploy(2), live: deploy(7), hpa: false, replicas: 2 },
    { name: "not created yet: the rendered replicas start it", desired: deploy(2), live: undefined, hpa: true, replicas: 2 },
    { name: "the member's HPAs not listed yet (an agent's start): the member's replicas are kept", desired: deploy(2), live: deploy(6), hpa: undefined, replicas: 6 },
    { name: "not listed yet, not created yet: the rendered replicas start it", desired: deploy(2), live: undefined, hpa: undefined, replicas: 2 },
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

describe("retainByCustomization", () => {
  const gizmo = (paused: boolean, extra: Record<string, unknown> = {}): KubeObject => ({ apiVersion: "example.com/v1", kind: "Gizmo", metadata: { name: "g", namespace: "shop" }, spec: { size: 2, paused, ...extra } });
  const keepPaused: Pick<KindInterpreter, "retain"> = { retain: (d, o) => ({ ...d, spec: { ...(d.spec as object), paused: (o.spec as { paused: boolean }).paused } }) };
  const cases: { name: string; live: KubeObject | undefined; customized: Pick<KindInterpreter, "retain"> | undefined; want: { paused: boolean } | RegExp }[] = [
    { name: "the member's field kept", live: gizmo(true), customized: keepPaused, want: { paused: true } },
    { name: "not created yet: as rendered", live: undefined, customized: keepPaused, want: { paused: false } },
    { name: "no customized Retain: as rendered", live: gizmo(true), customized: undefined, want: { paused: false } },
    {
      name: "a failing script: refused with the Lua message",
      live: gizmo(true),
      customized: {
        retain: () => {
          throw new InterpreterError("Retain", "<string>:3: attempt to index a nil value");
        },
      },
      want: /^Retain: <string>:3: attempt to index a nil value$/,
    },
    { name: "another object returned: refused", live: gizmo(true), customized: { retain: (d) => ({ ...d, metadata: { ...d.metadata, name: "other" } }) }, want: /returned Gizmo\/other/ },
    { name: "another kind returned: refused", live: gizmo(true), customized: { retain: (d) => ({ ...d, kind: "Widget" }) }, want: /returned Widget\/g/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const out = retainByCustomization(gizmo(false), c.live, c.customized);
      if (c.want instanceof RegExp) {
        assert.ok("failure" in out, JSON.stringify(out));
        assert.match(out.failure, c.want);
      } else {
        assert.ok("desired" in out, JSON.stringify(out));
        assert.deepEqual(out.desired, gizmo(c.want.paused));
      }
    });
  }
});
