import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AGENT_FEATURES, PROTOCOL_VERSION } from "../../shared/protocol.ts";
import { AGENT_VERSION, helloOf } from "./hello.ts";

describe("helloOf", () => {
  const facts = { clusterName: "member1", workHashes: { "v1/ConfigMap/n/a": "h1", "v1/ConfigMap/n/b": "" }, earlierWorks: [], customizationsHash: "c1", metricsWantedHash: "m1" };

  it("says who the agent is, what it speaks and what it holds, and never asks for contents", () => {
    const hello = helloOf(facts);
    assert.equal(hello.clusterName, "member1");
    assert.equal(hello.agentVersion, AGENT_VERSION);
    assert.equal(hello.protocolVersion, PROTOCOL_VERSION);
    assert.deepEqual(hello.features, [...AGENT_FEATURES]);
    assert.deepEqual(hello.workHashes, facts.workHashes);
    assert.equal(hello.needsContents, false);
    assert.equal(hello.customizationsHash, "c1");
    assert.equal(hello.metricsWantedHash, "m1");
  });

  it("names the Works of an earlier registration, and none when there are none", () => {
    assert.equal(helloOf(facts).earlierRegistrationBits?.length ?? 0, 0);
    const bits = helloOf({ ...facts, earlierWorks: ["v1/ConfigMap/n/b"] }).earlierRegistrationBits;
    assert.ok(bits !== undefined && bits.length === 1 && bits[0] !== 0, "one bit set for the second key");
  });
});
