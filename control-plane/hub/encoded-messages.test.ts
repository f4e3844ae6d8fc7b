import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ControlMessage, type WorkUpsert } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { AgentHubServiceEncodedOnce, serializeControlMessage, workUpsertCounts, workUpsertMessage } from "./encoded-messages.ts";

const KEY = "apps/v1/Deployment/shop/web";
/** One rendering: the manifests array every cluster whose Work is identical shares. */
const rendered = [Buffer.from('{"kind":"Deployment","metadata":{"name":"web"}}'), Buffer.from('{"kind":"Service"}')];
const upsert = (o: Partial<WorkUpsert> = {}): WorkUpsert => ({ workKey: KEY, contentHash: "h1", manifests: rendered, conflictResolution: "Abort", preserveResourcesOnDeletion: false, ...o });
/** What the generated serializer, which grpc-js used before, writes. */
const generated = (m: ControlMessage) => Buffer.from(ControlMessage.encode(m).finish());

/** The encodings and writes a step costs. */
function costOf(step: () => void): { encodings: number; written: number } {
  const before = workUpsertCounts();
  step();
  const after = workUpsertCounts();
  return { encodings: after.encodings - before.encodings, written: after.written - before.written };
}

describe("workUpsertMessage", () => {
  it("a Work sent to 100 clusters is encoded once; every stream is written the generated serializer's bytes", () => {
    const serialized: Buffer[] = [];
    const cost = costOf(() => {
      for (let i = 0; i < 100; i++) serialized.push(AgentHubServiceEncodedOnce.connect.responseSerialize(workUpsertMessage(upsert({ contentHash: "fan-out" }))));
    });
    assert.deepEqual(cost, { encodings: 1, written: 100 });
    const want = generated({ kind: { $case: "workUpsert", value: upsert({ contentHash: "fan-out" }) } });
    for (const bytes of serialized) assert.ok(bytes.equals(want));
    assert.deepEqual(ControlMessage.decode(serialized[0] ?? Buffer.alloc(0)), { kind: { $case: "workUpsert", value: upsert({ contentHash: "fan-out" }) } });
  });

  it("the encoding it carries is invisible to whatever walks the message", () => {
    const m = workUpsertMessage(upsert({ contentHash: "walked" }));
    assert.deepEqual(m, { kind: { $case: "workUpsert", value: upsert({ contentHash: "walked" }) } });
    assert.deepEqual(Object.getOwnPropertySymbols(m).map((s) => Object.getOwnPropertyDescriptor(m, s)?.enumerable), [false]);
    assert.equal(JSON.stringify(m), JSON.stringify({ kind: { $case: "workUpsert", value: upsert({ contentHash: "walked" }) } }));
  });

  // Each case: after the base Work is encoded, a second message; shared or its own encoding.
  const cases: { name: string; second: WorkUpsert; shared: boolean }[] = [
    { name: "the same Work again (another cluster's session)", second: upsert(), shared: true },
    { name: "the same fields in a new object around the same manifests array", second: { ...upsert() }, shared: true },
    { name: "another content hash", second: upsert({ contentHash: "h2" }), shared: false },
    { name: "another conflict resolution", second: upsert({ conflictResolution: "Overwrite" }), shared: false },
    { name: "preserveResourcesOnDeletion set", second: upsert({ preserveResourcesOnDeletion: true }), shared: false },
    { name: "another work key", second: upsert({ workKey: "apps/v1/Deployment/shop/api" }), shared: false },
    { name: "equal bytes in another manifests array (another rendering: not known to be the same)", second: upsert({ manifests: rendered.map((b) => Buffer.from(b)) }), shared: false },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.shared ? "shares the encoding" : "is encoded on its own"}`, () => {
      const first = workUpsertMessage(upsert());
      let second: ControlMessage | undefined;
      const cost = costOf(() => {
        second = workUpsertMessage(c.second);
      });
      assert.equal(cost.encodings, c.shared ? 0 : 1);
      assert.equal(second === first, c.shared);
      const bytes = serializeControlMessage(second ?? first);
      assert.ok(bytes.equals(generated({ kind: { $case: "workUpsert", value: c.second } })), "the generated serializer's bytes");
      assert.deepEqual(ControlMessage.decode(bytes), { kind: { $case: "workUpsert", value: c.second } });
    });
  }
});

describe("serializeControlMessage", () => {
  const messages: { name: string; message: ControlMessage; encodings: number; written: number }[] = [
    { name: "a WorkUpsert built without workUpsertMessage: encoded now, and counted", message: { kind: { $case: "workUpsert", value: upsert({ contentHash: "plain" }) } }, encodings: 1, written: 1 },
    { name: "a WorkDelete", message: { kind: { $case: "workDelete", value: { workKey: KEY, preserve: false, reason: "TemplateDeleted" } } }, encodings: 0, written: 0 },
    { name: "SyncDone", message: { kind: { $case: "syncDone", value: { workCount: 3, reconnectSpreadMs: 2000, hubFeatures: ["a"] } } }, encodings: 0, written: 0 },
    { name: "an empty message", message: { kind: undefined }, encodings: 0, written: 0 },
  ];
  for (const c of messages) {
    it(`${c.name}: the generated serializer's bytes`, () => {
      let bytes: Buffer = Buffer.alloc(0);
      const cost = costOf(() => {
        bytes = serializeControlMessage(c.message);
      });
      assert.deepEqual(cost, { encodings: c.encodings, written: c.written });
      assert.ok(bytes.equals(generated(c.message)));
    });
  }

  it("the registered definition differs from the generated one only in serializing what the hub sends", () => {
    const { connect, renew } = AgentHubServiceEncodedOnce;
    assert.equal(connect.responseSerialize, serializeControlMessage);
    assert.equal(connect.path, "/flotilla.v1alpha1.AgentHub/Connect");
    assert.equal(renew.path, "/flotilla.v1alpha1.AgentHub/Renew");
  });
});
