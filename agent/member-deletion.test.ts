import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { deleteOptions, isOurs } from "./member-deletion.ts";

describe("deleteOptions", () => {
  it("names the uid of the object the agent decided to delete (an object replaced meanwhile is refused by the apiserver)", () => {
    assert.deepEqual(deleteOptions("5e1f"), { propagationPolicy: "Background", preconditions: { uid: "5e1f" } });
  });
});

describe("isOurs", () => {
  const cases: { name: string; labels: Record<string, string> | undefined; ours: boolean }[] = [
    { name: "this Work's label", labels: { "flotilla.dev/work": "w1" }, ours: true },
    { name: "another Work's label", labels: { "flotilla.dev/work": "w2" }, ours: false },
    { name: "no label", labels: undefined, ours: false },
    { name: "this Work's label but marked managed=false", labels: { "flotilla.dev/work": "w1", "flotilla.dev/managed": "false" }, ours: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(isOurs({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", labels: c.labels } }, "w1"), c.ours));
  it("an object that is not there", () => assert.equal(isOurs(undefined, "w1"), false));
});
