// The README documents every flag of every command (the standard: keep the README true).
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { it } from "node:test";
import { agentFlags } from "../agent/main.ts";
import { commandFlags } from "../bin/ctl/command-flags.ts";
import { connectionFlags } from "../bin/ctl/connection.ts";
import { certsAdminFlags, certsAgentFlags, certsInitFlags, certsRevokeFlags } from "../control-plane/clusters/certs.ts";
import { controlPlaneFlags } from "../control-plane/main.ts";

it("README.md documents every flag and environment variable of flotilla's and flotillactl's commands", async () => {
  const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
  for (const spec of [...controlPlaneFlags, ...agentFlags, ...certsInitFlags, ...certsAgentFlags, ...certsAdminFlags, ...certsRevokeFlags, ...connectionFlags, ...commandFlags]) {
    assert.ok(readme.includes(`--${spec.name}`), `README.md lacks --${spec.name}`);
    if (spec.env) assert.ok(readme.includes(spec.env), `README.md lacks ${spec.env}`);
  }
});
