import assert from "node:assert/strict";
import { it } from "node:test";
import { parseFlags } from "../shared/flags.ts";
import { controlPlaneFlags, templateSyncs } from "./main.ts";

const parse = (...args: string[]) => templateSyncs(parseFlags(controlPlaneFlags, ["--ca-cert=a", "--tls-cert=b", "--tls-key=c", ...args], {}));

it("--concurrent-resource-template-syncs: 16 by default, a whole number from 1", () => {
  assert.equal(parse(), 16);
  assert.equal(parse("--concurrent-resource-template-syncs=5"), 5);
  assert.throws(() => parse("--concurrent-resource-template-syncs=0"), /whole number from 1/);
  assert.throws(() => parse("--concurrent-resource-template-syncs=-3"), /whole number from 1/);
});
