import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Hello, InterpreterCustomizations } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { AGENT_FEATURES, FEATURES, PROTOCOL_VERSION } from "../../shared/protocol.ts";
import { CustomizationDelivery } from "./customization-delivery.ts";

const hello = (o: Partial<Hello>): Hello => ({ clusterName: "m1", agentVersion: "t", workHashes: {}, needsContents: false, protocolVersion: PROTOCOL_VERSION, features: [...AGENT_FEATURES], ...o });
const set = (hash: string): InterpreterCustomizations => ({ contentHash: hash, customizations: hash === "" ? [] : [Buffer.from("{}")] });

describe("CustomizationDelivery", () => {
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
      const d = new CustomizationDelivery(() => set(c.current));
      assert.equal(d.hello(c.hello), c.takes);
      assert.equal(d.takes, c.takes);
      assert.equal(d.next()?.contentHash, c.sent);
      assert.equal(d.next(), undefined, "a set sent counts as held: never twice");
    });
  }
});
