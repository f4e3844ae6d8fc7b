import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { scaleDownRules, scaleUpRules, tolerancesOf } from "./federated-hpa-api.ts";

describe("FederatedHPA defaults", () => {
  it("tolerance is the controller's 0.1 each way unless a direction sets its own", () => {
    assert.deepEqual(tolerancesOf(undefined), { scaleUp: 0.1, scaleDown: 0.1 });
    assert.deepEqual(tolerancesOf({ scaleDown: { tolerance: "50m" } }), { scaleUp: 0.1, scaleDown: 0.05 });
    assert.deepEqual(tolerancesOf({}, 0.2), { scaleUp: 0.2, scaleDown: 0.2 });
  });

  it("scale-up: no window, the larger of +4 pods and +100 % per 15 s", () => {
    assert.deepEqual(scaleUpRules(undefined), {
      stabilizationWindowSeconds: 0, selectPolicy: "Max",
      policies: [{ type: "Pods", value: 4, periodSeconds: 15 }, { type: "Percent", value: 100, periodSeconds: 15 }],
    });
  });

  it("scale-down: the controller's window (300 s unless configured), -100 % per 15 s; set fields win", () => {
    assert.deepEqual(scaleDownRules(undefined), { stabilizationWindowSeconds: 300, selectPolicy: "Max", policies: [{ type: "Percent", value: 100, periodSeconds: 15 }] });
    assert.equal(scaleDownRules(undefined, 60).stabilizationWindowSeconds, 60);
    assert.deepEqual(scaleDownRules({ stabilizationWindowSeconds: 0, selectPolicy: "Disabled" }).selectPolicy, "Disabled");
    assert.equal(scaleDownRules({ stabilizationWindowSeconds: 0 }).stabilizationWindowSeconds, 0);
  });
});
