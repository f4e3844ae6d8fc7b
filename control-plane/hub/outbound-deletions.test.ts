import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AGENT_FEATURES, FEATURES } from "../../shared/protocol.ts";
import { type Intent, misreadBy, OutboundDeletions } from "./outbound-deletions.ts";

/** A cluster holding `n` Works w0…w(n-1), all meant to go for `reason`, with a budget of min 2, 50%. */
function setup(n: number, intent: (key: string) => Intent | undefined = () => ({ reason: "TemplateDeleted", preserve: false })) {
  const held: string[] = [];
  const d = new OutboundDeletions({ cluster: "member1", intent, budget: { percent: 50, min: 2, windowMs: 60_000 }, onHeld: (k) => held.push(k), now: () => 0 });
  const keys = Array.from({ length: n }, (_, i) => `w${i}`);
  for (const k of keys) d.holding(k);
  return { d, keys, held };
}

describe("OutboundDeletions: the brake on one cluster", () => {
  it("sends deletions up to the budget, holds the rest once each, and says so", () => {
    const { d, keys, held } = setup(10);
    const sent = keys.filter((k) => d.deleteFor(k) !== undefined);
    assert.deepEqual(sent, ["w0", "w1", "w2", "w3", "w4"], "50% of the 10 it held");
    assert.deepEqual(held, ["w5", "w6", "w7", "w8", "w9"]);
    assert.equal(d.heldCount, 5);
    for (const k of keys.slice(5)) assert.equal(d.deleteFor(k), undefined, "judged again, still held");
    assert.equal(held.length, 5, "a hold is reported once");
  });

  it("Works that carry one object together (an import and its clusters' slices) count once in the window", () => {
    const held: string[] = [];
    const d = new OutboundDeletions({ cluster: "member1", intent: () => ({ reason: "ExportsWithdrawn", preserve: false }), budget: { percent: 50, min: 2, windowMs: 60_000 }, onHeld: (k) => held.push(k), brakeKey: (k) => k.split(".")[0] ?? k, now: () => 0 });
    const keys = ["a", "a.m1", "a.m2", "b", "b.m1", "c", "c.m1"];
    for (const k of keys) d.holding(k);
    const sent = keys.filter((k) => d.deleteFor(k) !== undefined);
    assert.deepEqual(sent, ["a", "a.m1", "a.m2", "b", "b.m1"], "two imports fit the budget of 2, whatever Works carry them");
    assert.deepEqual(held, ["c", "c.m1"]);
  });

  it("approve sends what is held (past the budget) and starts the window again", () => {
    const { d, keys } = setup(10);
    for (const k of keys) d.deleteFor(k);
    assert.deepEqual(d.decide("approve"), ["w5", "w6", "w7", "w8", "w9"]);
    for (const k of keys.slice(5)) assert.deepEqual(d.deleteFor(k), { reason: "TemplateDeleted", preserve: false });
    assert.equal(d.heldCount, 0);
  });

  it("reject keeps the objects: the Works go with preserve, so nothing waits on them", () => {
    const { d, keys } = setup(10);
    for (const k of keys) d.deleteFor(k);
    d.decide("reject");
    for (const k of keys.slice(5)) assert.deepEqual(d.deleteFor(k), { reason: "TemplateDeleted", preserve: true });
  });

  it("a held Work that is wanted again (upserted) or whose intent is gone is no longer held", () => {
    let intent = true;
    const { d, keys } = setup(4, () => (intent ? { reason: "PlacementChanged", preserve: false } : undefined));
    for (const k of keys) d.deleteFor(k);
    assert.equal(d.heldCount, 2);
    d.holding("w2");
    assert.ok(!d.isHeld("w2"));
    intent = false;
    assert.equal(d.deleteFor("w3"), undefined);
    assert.ok(!d.isHeld("w3"));
  });

  it("never brakes what destroys nothing: preserved objects, or a cluster that is leaving", () => {
    for (const intent of [{ reason: "TemplateDeleted", preserve: true }, { reason: "ClusterUnjoined", preserve: false }]) {
      const { d, keys, held } = setup(10, () => intent);
      assert.ok(keys.every((k) => d.deleteFor(k) !== undefined), intent.reason);
      assert.deepEqual(held, []);
    }
  });

  it("no intent, no deletion, and nothing counted", () => {
    const { d, keys } = setup(3, () => undefined);
    assert.ok(keys.every((k) => d.deleteFor(k) === undefined));
    assert.equal(d.heldCount, 0);
  });
});

describe("OutboundDeletions: Works applied under an earlier registration of the cluster (issue 37, item 7)", () => {
  const budget = { percent: 100, min: 0, windowMs: 60_000 };
  const make = (reason: string) => {
    const held: string[] = [];
    const d = new OutboundDeletions({ cluster: "member1", intent: () => ({ reason, preserve: false }), budget, onHeld: (k) => held.push(k), now: () => 0 });
    for (const k of ["a", "b"]) d.holding(k);
    d.registeredEarlier(["a"]);
    return { d, held };
  };
  it("a placement that no longer names the cluster removes nothing it applied before it registered again: held, once, and said why", () => {
    for (const reason of ["PlacementChanged", "DependencyReleased"]) {
      const { d, held } = make(reason);
      assert.equal(d.deleteFor("a"), undefined, reason);
      assert.equal(d.deleteFor("a"), undefined, "judged again: still held");
      assert.deepEqual(held, ["a"]);
      assert.match(d.heldMessage("a"), /member1 registered again since this Work was applied there.*flotillactl deletions approve member1/);
      assert.deepEqual(d.deleteFor("b"), { reason, preserve: false }, "a Work of this registration goes as before");
    }
  });
  it("a deleted template, or an unjoin, removes it whatever the registration", () => {
    for (const reason of ["TemplateDeleted", "ClusterUnjoined"]) assert.deepEqual(make(reason).d.deleteFor("a"), { reason, preserve: false });
  });
  it("a person decides: approve sends the removal, reject keeps the objects released", () => {
    const approved = make("PlacementChanged").d;
    approved.deleteFor("a");
    assert.deepEqual(approved.decide("approve"), ["a"]);
    assert.deepEqual(approved.deleteFor("a"), { reason: "PlacementChanged", preserve: false });
    const rejected = make("PlacementChanged").d;
    rejected.deleteFor("a");
    rejected.decide("reject");
    assert.deepEqual(rejected.deleteFor("a"), { reason: "PlacementChanged", preserve: true });
  });
  it("given again by its placement, it belongs to this registration: a later placement change removes it", () => {
    const { d } = make("PlacementChanged");
    d.deleteFor("a");
    d.holding("a");
    assert.ok(!d.isHeld("a"));
    assert.deepEqual(d.deleteFor("a"), { reason: "PlacementChanged", preserve: false });
  });
  it("a key the agent does not hold is not taken as an earlier registration's", () => {
    const d = new OutboundDeletions({ cluster: "member1", intent: () => ({ reason: "PlacementChanged", preserve: false }), budget, onHeld: () => {}, now: () => 0 });
    d.registeredEarlier(["x"]);
    d.holding("x");
    assert.deepEqual(d.deleteFor("x"), { reason: "PlacementChanged", preserve: false });
  });
});

describe("misreadBy: what an older agent would get wrong", () => {
  const all = new Set(AGENT_FEATURES);
  const none = new Set<string>();
  const ns = "core/v1/Namespace/-/shop";
  const crd = "apiextensions.k8s.io/v1/CustomResourceDefinition/-/widgets.example.com";
  const cm = "core/v1/ConfigMap/shop/conf";
  const cases: { name: string; features: Set<string>; key: string; intent: Intent; want: string | undefined }[] = [
    { name: "a current agent gets everything", features: all, key: ns, intent: { reason: "TemplateDeleted", preserve: false, preserveUnknown: true }, want: undefined },
    { name: "an old agent and a Namespace: it would cascade", features: none, key: ns, intent: { reason: "TemplateDeleted", preserve: false }, want: FEATURES.keepUnmanagedContents },
    { name: "an old agent and a CRD: likewise", features: none, key: crd, intent: { reason: "PlacementChanged", preserve: false }, want: FEATURES.keepUnmanagedContents },
    {
      name: "an agent that keeps unmanaged contents but not another Work's: it would take that Work's objects with the Namespace",
      features: new Set([FEATURES.durablePreserve, FEATURES.keepUnmanagedContents]),
      key: ns,
      intent: { reason: "PlacementChanged", preserve: false },
      want: FEATURES.keepOtherWorksContents,
    },
    { name: "an old agent, binding gone: it cannot know to preserve", features: none, key: cm, intent: { reason: "TemplateDeleted", preserve: false, preserveUnknown: true }, want: FEATURES.durablePreserve },
    { name: "an old agent and an ordinary removal: sent", features: none, key: cm, intent: { reason: "TemplateDeleted", preserve: false }, want: undefined },
    { name: "a preserving removal destroys nothing: sent", features: none, key: ns, intent: { reason: "TemplateDeleted", preserve: true }, want: undefined },
  ];
  for (const c of cases) it(c.name, () => assert.equal(misreadBy(c.features, c.key, c.intent), c.want));

  it("holds what an outdated agent would misread, says why, and sends it once approved", () => {
    const held: [string, string][] = [];
    const d = new OutboundDeletions({ cluster: "member1", intent: () => ({ reason: "TemplateDeleted", preserve: false }), onHeld: (k, m) => held.push([k, m]) });
    d.agentDeclared([]);
    d.holding("core/v1/Namespace/-/shop");
    assert.deepEqual(d.missingFeatures(), [FEATURES.durablePreserve, FEATURES.keepUnmanagedContents, FEATURES.keepOtherWorksContents]);
    assert.equal(d.deleteFor("core/v1/Namespace/-/shop"), undefined);
    assert.match(held[0]?.[1] ?? "", /outdated \(it lacks keep-unmanaged-contents\)/);
    d.decide("approve");
    assert.deepEqual(d.deleteFor("core/v1/Namespace/-/shop"), { reason: "TemplateDeleted", preserve: false });
    d.agentDeclared([...AGENT_FEATURES]);
    assert.deepEqual(d.missingFeatures(), []);
  });
});

describe("OutboundDeletions: a dependency waits for its workload to go first (issue 37)", () => {
  /** Works w0…w5 (workloads, all meant to go) and dep (a ConfigMap that waits for w5 while the agent holds it). */
  function fleet() {
    const of: { d?: OutboundDeletions } = {};
    // As the hub's judge asks it (index.ts: runs is AgentSession.holdsWork, inTheWay here).
    const intent = (key: string): Intent => (key === "dep" && of.d?.inTheWay("w5") === true ? { reason: "PlacementChanged", preserve: false, waitsFor: "w5" } : { reason: "PlacementChanged", preserve: false });
    const held: string[] = [];
    const d = new OutboundDeletions({ cluster: "member1", intent, budget: { percent: 50, min: 2, windowMs: 60_000 }, onHeld: (k) => held.push(k), now: () => 0 });
    of.d = d;
    for (const k of ["w0", "w1", "w2", "w3", "w4", "w5", "dep"]) d.holding(k);
    return { d, held };
  }

  it("waits, unreported and uncounted, until its workload's removal is sent; then it goes", () => {
    const { d, held } = fleet();
    assert.equal(d.deleteFor("dep"), undefined);
    assert.equal(d.waitsFor("dep"), "w5");
    assert.deepEqual(d.waitingOn("w5"), ["dep"]);
    assert.deepEqual(held, [], "not held for a person");
    assert.deepEqual(d.deleteFor("w5"), { reason: "PlacementChanged", preserve: false });
    assert.deepEqual(d.deleteFor("dep"), { reason: "PlacementChanged", preserve: false }, "the waitsFor is not sent");
    assert.equal(d.waitsFor("dep"), undefined);
  });

  it("its workload's removal held by the brake and rejected: it is kept too (released with it)", () => {
    const { d } = fleet();
    for (const k of ["w0", "w1", "w2", "w3", "w4", "dep", "w5"]) d.deleteFor(k);
    assert.equal(d.isHeld("w5"), true, "past the budget");
    assert.deepEqual(d.decide("reject").sort(), ["dep", "w3", "w4", "w5"], "the held (past the budget of 3) and what waits for one of them");
    assert.deepEqual(d.deleteFor("w5"), { reason: "PlacementChanged", preserve: true });
    assert.deepEqual(d.deleteFor("dep"), { reason: "PlacementChanged", preserve: true }, "the workload that mounts it stays: so does it");
  });

  it("…and approved: it goes with it", () => {
    const { d } = fleet();
    for (const k of ["w0", "w1", "w2", "w3", "w4", "dep", "w5"]) d.deleteFor(k);
    assert.ok(d.decide("approve").includes("dep"));
    assert.deepEqual(d.deleteFor("dep"), { reason: "PlacementChanged", preserve: false });
  });

  it("a person's answer covers no removal that waits for a workload nobody holds", () => {
    const { d } = fleet();
    assert.equal(d.deleteFor("dep"), undefined, "waits for w5, not held");
    assert.deepEqual(d.decide("approve"), []);
    assert.equal(d.deleteFor("dep"), undefined, "still waiting");
  });

  it("a workload a person kept also keeps what is judged after it (its binding caught up later)", () => {
    const { d } = fleet();
    for (const k of ["w0", "w1", "w2", "w3", "w4", "w5"]) d.deleteFor(k);
    d.decide("reject");
    assert.deepEqual(d.deleteFor("w5"), { reason: "PlacementChanged", preserve: true });
    assert.deepEqual(d.deleteFor("dep"), { reason: "PlacementChanged", preserve: true }, "judged only now: kept with its workload");
  });

  it("a chain: what waits behind what waits for a held workload is answered too", () => {
    const of: { d?: OutboundDeletions } = {};
    const waitsFor: Record<string, string> = { b: "a", c: "b" };
    const intent = (key: string): Intent => {
      const w = waitsFor[key];
      return w !== undefined && of.d?.inTheWay(w) === true ? { reason: "PlacementChanged", preserve: false, waitsFor: w } : { reason: "PlacementChanged", preserve: false };
    };
    const d = new OutboundDeletions({ cluster: "member1", intent, budget: { percent: 0, min: 0, windowMs: 60_000 }, onHeld: () => {}, now: () => 0 });
    of.d = d;
    for (const k of ["a", "b", "c"]) d.holding(k);
    for (const k of ["c", "b", "a"]) assert.equal(d.deleteFor(k), undefined);
    assert.deepEqual(d.decide("reject").sort(), ["a", "b", "c"]);
    for (const k of ["a", "b", "c"]) assert.deepEqual(d.deleteFor(k), { reason: "PlacementChanged", preserve: true }, k);
  });

  it("an approval given while the workload was held waits again once the workload is given back", () => {
    const { d } = fleet();
    for (const k of ["w0", "w1", "w2", "w3", "w4", "dep", "w5"]) d.deleteFor(k);
    d.decide("approve");
    d.holding("w5"); // placed there again before its removal went
    assert.equal(d.deleteFor("dep"), undefined, "waits for w5 again");
    assert.equal(d.waitsFor("dep"), "w5");
  });

  it("two that refer to each other never wait for each other", () => {
    const of: { d?: OutboundDeletions } = {};
    const intent = (key: string): Intent => ({ reason: "PlacementChanged", preserve: false, ...(of.d?.inTheWay(key === "a" ? "b" : "a") === true ? { waitsFor: key === "a" ? "b" : "a" } : {}) });
    const d = new OutboundDeletions({ cluster: "member1", intent, onHeld: () => {}, now: () => 0 });
    of.d = d;
    d.holding("a");
    d.holding("b");
    assert.equal(d.deleteFor("a"), undefined, "a waits for b");
    assert.deepEqual(d.deleteFor("b"), { reason: "PlacementChanged", preserve: false }, "b would wait for a, which waits for b: it goes");
    assert.deepEqual(d.waitingOn("b"), ["a"], "and a is judged again once b is sent");
  });

  it("given again (its binding caught up), it waits no more", () => {
    const { d } = fleet();
    d.deleteFor("dep");
    d.holding("dep");
    assert.deepEqual(d.waitingOn("w5"), []);
  });
});
