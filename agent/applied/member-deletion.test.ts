import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { deleteOptions } from "./member-deletion.ts";

describe("deleteOptions", () => {
  it("names the uid of the object the agent decided to delete (an object replaced meanwhile is refused by the apiserver)", () => {
    assert.deepEqual(deleteOptions("5e1f"), { propagationPolicy: "Background", preconditions: { uid: "5e1f" } });
  });
});
