import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { EARLIER_LIST_BUDGET_BYTES, earlierFromBits, earlierOfHello, earlierRegistration } from "./earlier-registration.ts";

describe("a Hello's earlier registration Works as bits (issue 37, item 7)", () => {
  const keys = ["core/v1/ConfigMap/app/c", "apps/v1/Deployment/app/d", "core/v1/ConfigMap/app/a", "core/v1/Namespace/-/app"];
  // Ascending: apps/…/d (0), core/…/ConfigMap/app/a (1), core/…/ConfigMap/app/c (2), core/…/Namespace (3).
  const cases: { name: string; earlier: string[]; bits: number[] }[] = [
    { name: "none: no bytes", earlier: [], bits: [] },
    { name: "one", earlier: ["core/v1/ConfigMap/app/c"], bits: [0b0100] },
    { name: "several, in any order", earlier: ["core/v1/Namespace/-/app", "apps/v1/Deployment/app/d"], bits: [0b1001] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const e = earlierRegistration(keys, c.earlier);
      assert.deepEqual([...e.earlierRegistrationBits], c.bits);
      assert.deepEqual(e.earlierRegistrationWorks, c.earlier, "the list too, while small");
      const read = earlierFromBits(keys, e.earlierRegistrationBits);
      assert.deepEqual(read.ok ? read.keys.sort() : read.reason, [...c.earlier].sort());
    });
  }

  it("round-trips any set over any keys, whatever order the hub lists them in", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12, unit: fc.constantFrom(..."abc/-.09") }), { maxLength: 40 }), fc.array(fc.boolean(), { maxLength: 40 }), (ks, pick) => {
        const earlier = ks.filter((_, i) => pick[i] === true);
        const e = earlierRegistration(ks, earlier);
        const read = earlierFromBits([...ks].reverse(), e.earlierRegistrationBits);
        assert.ok(read.ok);
        assert.deepEqual(read.keys.sort(), [...earlier].sort());
        assert.ok(e.earlierRegistrationBits.length <= Math.ceil(ks.length / 8));
      }),
    );
  });

  it("a long list is left out; the bits still say it all", () => {
    const many = Array.from({ length: 5000 }, (_, i) => `apps/v1/Deployment/namespace-of-the-workloads/workload-number-${i}`);
    const e = earlierRegistration(many, many);
    assert.ok(many.reduce((n, k) => n + k.length, 0) > EARLIER_LIST_BUDGET_BYTES);
    assert.deepEqual(e.earlierRegistrationWorks, []);
    assert.equal(e.earlierRegistrationBits.length, 625);
    assert.equal(earlierOfHello({ workHashes: Object.fromEntries(many.map((k) => [k, "h"])), ...e }).length, 5000);
  });

  const malformed: { name: string; bits: number[]; reason: RegExp }[] = [
    { name: "more bytes than the Works need", bits: [0, 0], reason: /2 bytes for 4 Works/ },
    { name: "a bit past the last Work", bits: [0b10000], reason: /sets bit 4, past the 4 Works/ },
  ];
  for (const c of malformed) {
    it(`malformed: ${c.name}`, () => {
      const read = earlierFromBits(keys, Uint8Array.from(c.bits));
      assert.equal(read.ok, false);
      if (!read.ok) assert.match(read.reason, c.reason);
    });
  }

  it("a hub reads the bits when present, else the list of an agent from before them", () => {
    const workHashes = Object.fromEntries(keys.map((k) => [k, "h"]));
    assert.deepEqual(earlierOfHello({ workHashes, earlierRegistrationWorks: ["core/v1/ConfigMap/app/a"] }), ["core/v1/ConfigMap/app/a"]);
    assert.deepEqual(earlierOfHello({ workHashes, earlierRegistrationWorks: [], earlierRegistrationBits: Uint8Array.from([0b0100]) }), ["core/v1/ConfigMap/app/c"]);
  });
});
