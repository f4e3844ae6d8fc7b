// Every flotillactl command is listed in the help's overview exactly once, under one group.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { commands } from "../flotillactl.ts";
import { commandGroups } from "./command-groups.ts";

describe("flotillactl's command groups", () => {
  const titles = commandGroups.map((g) => g.title);

  it("are kubectl's kind of headings, each named once", () => {
    assert.deepEqual(titles, [...new Set(titles)]);
    for (const want of ["Fleet and clusters", "Templates and policies", "Rollouts", "Members (through the control plane)", "Migration", "Other"]) assert.ok(titles.includes(want), want);
  });

  for (const name of Object.keys(commands)) {
    it(`put ${name} in exactly one group`, () => {
      const holding = commandGroups.filter((g) => Object.hasOwn(g.commands, name)).map((g) => g.title);
      assert.equal(holding.length, 1, `${name} is in ${holding.length === 0 ? "no group" : holding.join(", ")}`);
    });
  }

  it("hold no command the command table lacks", () => {
    for (const g of commandGroups) for (const name of Object.keys(g.commands)) assert.ok(Object.hasOwn(commands, name), `${g.title}: ${name}`);
  });
});
