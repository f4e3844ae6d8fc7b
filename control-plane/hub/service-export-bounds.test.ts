import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BOUNDS, checkServiceExport, checkServiceExportsSynced } from "./message-bounds.ts";

const report = (o: Partial<{ namespace: string; name: string; export: Buffer; withdrawn: boolean }>) => ({ namespace: "shop", name: "web", export: Buffer.from("{}"), withdrawn: false, ...o });

describe("checkServiceExport: the bounds of an agent's export report (issue 40)", () => {
  const cases: [string, ReturnType<typeof report>, RegExp | undefined][] = [
    ["a report", report({}), undefined],
    ["a withdrawal", report({ export: Buffer.alloc(0), withdrawn: true }), undefined],
    ["a namespace that is not a DNS label", report({ namespace: "../x" }), /namespace/],
    ["a name of 64 characters", report({ name: "a".repeat(64) }), /name/],
    ["an export over the bound", report({ export: Buffer.alloc(BOUNDS.serviceExport + 1) }), /bytes/],
    ["a withdrawal carrying an export", report({ withdrawn: true }), /withdrawn/],
    ["an empty export that is not withdrawn", report({ export: Buffer.alloc(0) }), /nothing/],
  ];
  for (const [what, r, refused] of cases) {
    it(`${what}: ${refused === undefined ? "taken" : "refused"}`, () => {
      const c = checkServiceExport(r);
      assert.equal(c.ok, refused === undefined);
      if (!c.ok && refused !== undefined) assert.match(c.reason, refused);
    });
  }
});

describe("checkServiceExportsSynced: the list of every export", () => {
  it("takes namespace/name entries", () => assert.ok(checkServiceExportsSynced({ exports: ["shop/web", "a/b"] }).ok));
  it("refuses an entry that is not namespace/name", () => assert.equal(checkServiceExportsSynced({ exports: ["shop/web/x"] }).ok, false));
  it("refuses a list over the bound", () => assert.equal(checkServiceExportsSynced({ exports: Array.from({ length: BOUNDS.serviceExports + 1 }, (_, i) => `n/s${i}`) }).ok, false));
});
