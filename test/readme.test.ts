// README.md is the front page: short, with the two set-up commands (CI runs the test one), and
// every flag of every command documented in the generated docs/reference/flags.md.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { it } from "node:test";
import { commands as flotillaCommands } from "../bin/flotilla-commands.ts";
import { commands as flotillactlCommands } from "../bin/flotillactl.ts";
import { commandFlags } from "../bin/ctl/command-flags.ts";
import { connectionFlags } from "../bin/ctl/connection.ts";

it("docs/reference/flags.md documents every flag and environment variable of flotilla's and flotillactl's commands, each described", async () => {
  const flags = await readFile(new URL("../docs/reference/flags.md", import.meta.url), "utf8");
  const tables = [...Object.values(flotillaCommands), ...Object.values(flotillactlCommands)].map((c) => c.flags);
  for (const spec of [...tables.flat(), ...connectionFlags, ...commandFlags]) {
    assert.ok(spec.help.trim() !== "", `--${spec.name} has no description`);
    assert.ok(flags.includes(`\`--${spec.name}\``), `docs/reference/flags.md lacks --${spec.name} (run \`npm run docs:gen\`)`);
    if (spec.env) assert.ok(flags.includes(`\`${spec.env}\``), `docs/reference/flags.md lacks ${spec.env} (run \`npm run docs:gen\`)`);
  }
});

it("README.md is under 200 lines and gives the demo and test commands as they are run", async () => {
  const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
  const lines = readme.split("\n").length - (readme.endsWith("\n") ? 1 : 0);
  assert.ok(lines < 200, `README.md has ${lines} lines (at most 199): move detail to docs/`);
  assert.ok(readme.includes("\nnpm ci && npm run up      # the whole local fleet with a sample app, until Ctrl-C\n"), "README.md lacks the demo command line");
  assert.ok(readme.includes("\nnpm ci && npm test        # lint, type check, and every test (unit and real-cluster)\n"), "README.md lacks the test command line");
  // CI runs the README's test command: keep the two the same.
  const ci = await readFile(new URL("../.ci/run", import.meta.url), "utf8");
  assert.match(ci, /^npm ci && npm test$/m, ".ci/run no longer runs the README's test command");
});
