import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { statusHolds } from "./status-holds.ts";

describe("statusHolds: whether the template's .status already says what would be written", () => {
  const condition = { type: "Available", status: "True", reason: "MinimumReplicasAvailable", message: "m" };
  const cases: { name: string; want: unknown; have: unknown; holds: boolean }[] = [
    { name: "the same counts", want: { replicas: 2 }, have: { replicas: 2, observedGeneration: 1 }, holds: true },
    { name: "a changed count", want: { replicas: 3 }, have: { replicas: 2 }, holds: false },
    { name: "zero and absent are one (nothing to write at first)", want: { replicas: 0 }, have: {}, holds: true },
    { name: "conditions the apiserver stored with null times of its own", want: { conditions: [condition] }, have: { conditions: [{ ...condition, lastUpdateTime: null, lastTransitionTime: null }] }, holds: true },
    { name: "a condition whose status changed", want: { conditions: [condition] }, have: { conditions: [{ ...condition, status: "False" }] }, holds: false },
    { name: "a condition more or less", want: { conditions: [condition] }, have: { conditions: [condition, condition] }, holds: false },
    { name: "conditions not written yet", want: { conditions: [condition] }, have: {}, holds: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(statusHolds(c.want, c.have), c.holds));
});
