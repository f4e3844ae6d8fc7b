// The default region and zone of test members' Cluster objects (test/env/flotilla.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defaultClusterSpec } from "./flotilla.ts";

describe("defaultClusterSpec", () => {
  for (const [member, want] of [
    ["member1", { region: "eu", zone: "eu-1" }],
    ["member2", { region: "us", zone: "us-1" }],
    ["member3", { region: "eu", zone: "eu-2" }],
    ["member4", { region: "us", zone: "us-2" }],
    ["member11", { region: "eu", zone: "eu-6" }],
    ["control", {}],
  ] as const) {
    it(`gives ${member} ${JSON.stringify(want)}`, () => assert.deepEqual(defaultClusterSpec(member), want));
  }
});
