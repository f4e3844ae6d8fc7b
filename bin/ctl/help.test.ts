import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Command } from "./command.ts";
import { positionalsFit } from "./command.ts";
import { asksForHelp, briefSummary, commandHelp, overview, programName } from "./help.ts";

const command = (summary: string, extra: Partial<Command> = {}): Command => ({ usage: "x", summary, flags: [], formats: ["table"], run: () => Promise.resolve(""), ...extra });

describe("flotillactl's help", () => {
  const briefs: [string, string, string][] = [
    ["a summary that fits stays whole", "member clusters: Ready, connected, version, nodes, capacity, last heartbeat", "member clusters: Ready, connected, version, nodes, capacity, last heartbeat"],
    ["a long one gives its first clause, up to a colon", `removes a member: ${"its agent removes what Flotilla applied, ".repeat(3)}`, "removes a member"],
    ["or up to a semicolon", `a template's propagation per cluster; ${"every cluster, also those left out, ".repeat(3)}`, "a template's propagation per cluster"],
    ["a colon inside parentheses does not end the clause", `what FILE (YAML; - for stdin) would ship before it is applied, per template and per cluster and more: ${"x ".repeat(40)}`, "what FILE would ship before it is applied, per template and per cluster and more"],
    ["a clause still too long loses its asides", `the object a cluster gets for a template, after overrides (a preview when it is not a target at all, ever): ${"x ".repeat(40)}`, "the object a cluster gets for a template, after overrides"],
    ["then is cut at its last comma that fits", `${"a".repeat(50)}, ${"b".repeat(20)}, ${"c".repeat(30)}`, `${"a".repeat(50)}, ${"b".repeat(20)}`],
    ["or at a word, with an ellipsis", `${"word ".repeat(30)}`, `${"word ".repeat(16).trimEnd()}…`],
  ];
  for (const [name, summary, want] of briefs) it(name, () => assert.equal(briefSummary(summary), want));

  it("lists each group's commands under its title, one line each, and ends with where the flags are", () => {
    const text = overview("flotillactl", [
      { title: "Fleet and clusters", commands: { "get clusters": command("member clusters"), unjoin: command("removes a member") } },
      { title: "Other", commands: { dashboard: command("a one-time link") } },
    ]);
    const lines = text.split("\n");
    assert.equal(lines.at(-1), "Use `flotillactl <command> --help` for a command's flags.");
    const at = lines.indexOf("Fleet and clusters:");
    assert.deepEqual(lines.slice(at, at + 6), ["Fleet and clusters:", "  get clusters   member clusters", "  unjoin         removes a member", "", "Other:", "  dashboard      a one-time link"]);
  });

  it("gives one command's usage, summary, flags and the connection flags", () => {
    const flags = [{ name: "cluster", type: "string" as const, help: "the member cluster" }];
    const text = commandHelp("kubectl flotilla", command("the Works of one cluster", { usage: "get works --cluster X", flags }), [{ name: "server", type: "string", help: "the address" }]);
    assert.match(text, /^Usage: kubectl flotilla get works --cluster X\n\nThe Works of one cluster\.\n\nFlags:\n {2}--cluster <string>\n {6}the member cluster\n\nConnection flags:\n {2}--server <string>/);
    assert.match(commandHelp("flotillactl", command("local", { direct: true }), []), /it makes no Admin API connection/);
  });

  const helps: [string[], boolean][] = [
    [["--help"], true],
    [["deployment/web", "-h"], true],
    [["deployment/web", "-n", "demo"], false],
    [["--", "--help"], false],
    [["--helpful"], false],
  ];
  for (const [argv, want] of helps) it(`${JSON.stringify(argv)} ${want ? "asks" : "does not ask"} for help`, () => assert.equal(asksForHelp(argv), want));

  const names: [string | undefined, string][] = [
    ["/usr/local/bin/flotillactl", "flotillactl"],
    ["/repo/bin/flotillactl.ts", "flotillactl"],
    ["/repo/node_modules/.bin/kubectl-flotilla", "kubectl flotilla"],
    ["kubectl-flotilla.js", "kubectl flotilla"],
    [undefined, "flotillactl"],
  ];
  for (const [file, want] of names) it(`names the program ${want} when started as ${String(file)}`, () => assert.equal(programName(file), want));

  const fits: [number, Command["positionals"], boolean][] = [
    [0, undefined, true],
    [1, undefined, false],
    [1, 1, true],
    [2, 1, false],
    [1, { min: 1, max: 2 }, true],
    [2, { min: 1, max: 2 }, true],
    [0, { min: 1, max: 2 }, false],
    [3, { min: 1, max: 2 }, false],
  ];
  for (const [count, want, ok] of fits) it(`${count} arguments ${ok ? "fit" : "do not fit"} ${JSON.stringify(want)}`, () => assert.equal(positionalsFit(count, want), ok));
});
