import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { derivedServiceName, importedSliceName } from "./derived-name.ts";

const DNS_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

describe("derivedServiceName: clusterset-<service> when it fits, else hashed", () => {
  const cases: { name: string; service: string; want: string | RegExp }[] = [
    { name: "a short name: the prefix and the name (a CoreDNS rewrite can find it)", service: "hello", want: "clusterset-hello" },
    { name: "52 characters: still fits in 63", service: "a".repeat(52), want: `clusterset-${"a".repeat(52)}` },
    { name: "53 characters: hashed", service: "a".repeat(53), want: /^clusterset-[0-9a-f]{16}$/ },
    { name: "a 60-character service: hashed, 27 characters", service: `svc-${"x".repeat(56)}`, want: /^clusterset-[0-9a-f]{16}$/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = derivedServiceName("shop", c.service);
      if (typeof c.want === "string") assert.equal(got, c.want);
      else assert.match(got, c.want);
      assert.ok(got.length <= 63 && DNS_LABEL.test(got), got);
    });
  }
  it("a hashed name depends on the namespace too", () => {
    const long = "s".repeat(60);
    assert.notEqual(derivedServiceName("shop", long), derivedServiceName("shop2", long));
    assert.equal(derivedServiceName("shop", long), derivedServiceName("shop", long));
  });
});

describe("importedSliceName: the derived name, cut, and a hash of the source cluster and slice", () => {
  it("fits in 63 characters and differs per cluster and slice", () => {
    const derived = derivedServiceName("shop", "a".repeat(52));
    const names = [importedSliceName(derived, "c1", "s1"), importedSliceName(derived, "c2", "s1"), importedSliceName(derived, "c1", "s2"), importedSliceName(derived, "c1", "s1", 1)];
    for (const n of names) assert.ok(n.length <= 63 && n.startsWith("clusterset-aaa"), n);
    assert.equal(new Set(names).size, names.length);
  });
  it("a short derived name is kept whole", () => assert.match(importedSliceName("clusterset-hello", "c1", "hello-abc"), /^clusterset-hello-[0-9a-f]{10}$/));
});
