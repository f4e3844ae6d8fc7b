import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Hello, InterpreterCustomizations, MetricsWanted } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { AGENT_FEATURES, FEATURES, PROTOCOL_VERSION } from "../../shared/protocol.ts";
import { customizationDelivery, metricsWantedDelivery } from "./hashed-delivery.ts";

const hello = (o: Partial<Hello>): Hello => ({ clusterName: "m1", agentVersion: "t", workHashes: {}, earlierRegistrationWorks: [], earlierRegistrationBits: Buffer.alloc(0), needsContents: false, protocolVersion: PROTOCOL_VERSION, features: [...AGENT_FEATURES], ...o });
const set = (hash: string): InterpreterCustomizations => ({ contentHash: hash, customizations: hash === "" ? [] : [Buffer.from("{}")] });

describe("customizationDelivery", () => {
  const cases: { name: string; hello: Hello; current: string; takes: boolean; sent: string | undefined }[] = [
    { name: "an agent holding nothing is sent the set", hello: hello({ customizationsHash: "" }), current: "h1", takes: true, sent: "h1" },
    { name: "an agent of before the field (absent) is sent the set", hello: hello({}), current: "h1", takes: true, sent: "h1" },
    { name: "an agent holding the set is sent nothing", hello: hello({ customizationsHash: "h1" }), current: "h1", takes: true, sent: undefined },
    { name: "an agent holding an old set is sent the new one", hello: hello({ customizationsHash: "h0" }), current: "h1", takes: true, sent: "h1" },
    { name: "an agent holding a set the fleet no longer has is sent the empty set", hello: hello({ customizationsHash: "h0" }), current: "", takes: true, sent: "" },
    { name: "nothing held, nothing in the fleet: nothing sent", hello: hello({}), current: "", takes: true, sent: undefined },
    { name: "an agent without the feature is never sent one", hello: hello({ features: AGENT_FEATURES.filter((f) => f !== FEATURES.interpreterCustomizations) }), current: "h1", takes: false, sent: undefined },
    { name: "an agent from before versioned Hellos declares nothing", hello: hello({ protocolVersion: 0 }), current: "h1", takes: false, sent: undefined },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = customizationDelivery(() => set(c.current));
      assert.equal(d.hello(c.hello), c.takes);
      assert.equal(d.takes, c.takes);
      assert.equal(d.next()?.contentHash, c.sent);
      assert.equal(d.next(), undefined, "a set sent counts as held: never twice");
    });
  }
});

describe("metricsWantedDelivery", () => {
  const list = (hash: string): MetricsWanted => ({ contentHash: hash, workloads: [] });
  const cases: { name: string; hello: Hello; current: string; sent: string | undefined }[] = [
    { name: "an agent holding no list is sent the list", hello: hello({ metricsWantedHash: "" }), current: "w1", sent: "w1" },
    { name: "an agent holding the list is sent nothing", hello: hello({ metricsWantedHash: "w1" }), current: "w1", sent: undefined },
    { name: "an agent holding an old list is sent the empty one when nothing is wanted any more", hello: hello({ metricsWantedHash: "w0" }), current: "", sent: "" },
    { name: "the customizations' hash says nothing of the list", hello: hello({ customizationsHash: "w1" }), current: "w1", sent: "w1" },
    { name: "an agent without the feature is never sent one", hello: hello({ features: AGENT_FEATURES.filter((f) => f !== FEATURES.workloadMetrics) }), current: "w1", sent: undefined },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = metricsWantedDelivery(() => list(c.current));
      d.hello(c.hello);
      assert.equal(d.next()?.contentHash, c.sent);
      assert.equal(d.next(), undefined, "a list sent counts as held: never twice");
    });
  }
});
