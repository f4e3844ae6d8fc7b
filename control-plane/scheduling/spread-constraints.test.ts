import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { levelCases, regionCases } from "./spread-constraints.cases.fixtures.ts";
import { applySpreadConstraints } from "./spread-constraints.ts";
import { cluster, clusters, fleet, only, region, run, want } from "./spread-constraints.fixtures.ts";


describe("applySpreadConstraints: regions, zones, providers, labels", () => {
  for (const c of regionCases) {
    it(c.name, () => {
      assert.deepEqual(run(c), want(c));
    });
  }

  it("gives the same answer whatever the order of candidates, constraints and previous", () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const shuffle = <T>(list: T[]): T[] => {
      const out = [...list];
      for (let i = out.length - 1; i > 0; i--) {
        const j = random(i + 1);
        [out[i], out[j]] = [out[j] as T, out[i] as T];
      }
      return out;
    };
    // Only the order of label constraints among themselves is meaningful, so keep at most one.
    const shufflable = [...regionCases, ...levelCases].filter((c) => Array.isArray(c.constraints) && c.constraints.filter((x) => x?.spreadByLabel).length <= 1);
    assert.ok(shufflable.length > 50);
    for (const c of shufflable) {
      for (let round = 0; round < 20; round++) {
        const shuffled = {
          candidates: shuffle(c.candidates ?? fleet),
          constraints: shuffle(c.constraints),
          previous: shuffle(c.previous ?? []),
          capacity: c.capacity,
        };
        const got = run(shuffled);
        // A validation error names the index of the constraint, which moves with it.
        if ("error" in got && /^spreadConstraints\[/.test(got.error)) continue;
        assert.deepEqual(got, want(c), `${c.name} / ${JSON.stringify(shuffled.candidates.map((x) => x.metadata.name))}`);
      }
    }
  });

  it("is stable: the chosen region stays chosen when another region gains clusters", () => {
    const constraints = [region({ max: 1 })];
    const before = run({ constraints, candidates: only("eu-1", "eu-2", "us-1") });
    assert.deepEqual(before, { clusters: ["eu-1", "eu-2"] });
    const grown = [...only("eu-1", "eu-2", "us-1"), cluster("us-4", { region: "us", zone: "us-a" }), cluster("us-5", { region: "us", zone: "us-b" })];
    // Without previous targets the bigger region would win …
    assert.deepEqual(run({ constraints, candidates: grown }), { clusters: ["us-1", "us-4", "us-5"] });
    // … with them the binding stays where it is.
    assert.deepEqual(run({ constraints, candidates: grown, previous: ["eu-1", "eu-2"] }), before);
  });

  it("is stable: chosen clusters stay chosen when a roomier cluster joins", () => {
    const constraints = [region({ min: 2 }), clusters({ max: 2 })];
    const before = run({ constraints, candidates: only("eu-1", "eu-2", "us-1", "us-2"), capacity: { "eu-1": 2, "us-2": 2 } });
    assert.deepEqual(before, { clusters: ["eu-1", "us-2"] });
    const grown = [...only("eu-1", "eu-2", "us-1", "us-2"), cluster("eu-9", { region: "eu" })];
    const capacity = { "eu-1": 2, "us-2": 2, "eu-9": 50 };
    assert.deepEqual(run({ constraints, candidates: grown, capacity }), { clusters: ["eu-9", "us-2"] });
    assert.deepEqual(run({ constraints, candidates: grown, capacity, previous: ["eu-1", "us-2"] }), before);
  });

  it("is a fixed point: feeding the answer back as previous gives the same answer", () => {
    for (const c of [...regionCases, ...levelCases]) {
      const first = run(c);
      if (!("clusters" in first)) continue;
      assert.deepEqual(run({ ...c, previous: first.clusters }), first, c.name);
    }
  });

  it("sorts by code unit, not by locale", () => {
    const candidates = [cluster("b"), cluster("B"), cluster("a"), cluster("A")];
    assert.deepEqual(applySpreadConstraints({ candidates, constraints: [], previous: [] }), { clusters: ["A", "B", "a", "b"] });
  });
});
