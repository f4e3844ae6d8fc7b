// The production bundles (issue 25): the agent's holds none of client-node's generated models (an
// upgrade that brings them back fails here), both run, `flotilla`'s carries fengari inside (no
// require left to run time, when there is no node_modules), and the plugins refuse a source whose
// shape they no longer know rather than bundling it wrong.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { bundle, bundleAgent, withBundledRequire } from "../scripts/bundle.ts";
import { withoutSerializer } from "../scripts/lean-client-node.ts";

describe("the agent's bundle", () => {
  let dir: string;
  let file: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "flotilla-bundle-"));
    file = (await bundleAgent(dir)).file;
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("holds none of client-node's generated models", async () => {
    const text = await readFile(file, "utf8");
    for (const marker of ["attributeTypeMap", "V1PodSpec", "V1StatefulSetSpec", "ObjectSerializer"]) assert.equal(text.includes(marker), false, `the bundle holds ${marker}`);
    assert.ok(text.length < 3_000_000, `the bundle is ${text.length} bytes`);
  });

  it("runs: prints the agent's usage", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [file, "--help"]);
    assert.match(stdout, /usage: flotilla agent/);
    assert.match(stdout, /--cluster-name/);
  });

  it("has the members' MCS CRDs beside it, where shared/mcs-crds.ts reads them", async () => {
    assert.deepEqual((await readdir(join(dir, "mcs-crds"))).filter((f) => f.endsWith(".yaml")).sort(), ["clusterproperties.yaml", "serviceexports.yaml", "serviceimports.yaml"]);
  });

  it("keeps every bundled package's licence and the source map beside it", async () => {
    const notices = await readFile(`${file}.THIRD-PARTY-NOTICES.txt`, "utf8");
    for (const pkg of ["@kubernetes/client-node", "@grpc/grpc-js", "pino", "undici"]) assert.match(notices, new RegExp(`^${pkg} \\d+\\.\\d+\\.\\d+ \\(`, "m"), pkg);
    assert.doesNotMatch(notices, /no licence file in the package; package.json says nothing/);
    assert.equal((JSON.parse(await readFile(`${file}.map`, "utf8")) as { version: number }).version, 3);
  });
});

describe("the flotilla bundle", () => {
  let dir: string;
  let file: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "flotilla-bundle-"));
    file = (await bundle("flotilla", dir)).file;
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("runs: prints every command's usage", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [file, "--help"]);
    for (const command of ["control-plane", "agent", "certs init"]) assert.match(stdout, new RegExp(`flotilla ${command}:`));
  });

  it("holds fengari, with no require of it left to run time, and none of client-node's generated models", async () => {
    const text = await readFile(file, "utf8");
    assert.match(text, /luaL_newstate/);
    assert.doesNotMatch(text, /require\("fengari/);
    for (const marker of ["attributeTypeMap", "V1PodSpec", "ObjectSerializer"]) assert.equal(text.includes(marker), false, `the bundle holds ${marker}`);
  });
});

describe("withBundledRequire", () => {
  it("drops fengari.ts's own require, so that the module's require() calls are bundled", () => {
    const src = 'const require = createRequire(import.meta.url);\nconst f = require("fengari");';
    assert.equal(withBundledRequire(src), '\nconst f = require("fengari");');
  });
  it("refuses a source whose shape changed", () => {
    assert.throws(() => withBundledRequire('const r = createRequire(import.meta.url);'), /no longer makes its require/);
  });
});

describe("withoutSerializer", () => {
  it("turns the string serialisations into String() and drops the import", () => {
    const src = "import { ObjectSerializer } from './serializer.js';\nq.labelSelector = ObjectSerializer.serialize(this.labelSelector, 'string');";
    assert.equal(withoutSerializer(src), "\nq.labelSelector = String(this.labelSelector);");
  });
  it("refuses a source whose shape changed", () => {
    assert.throws(() => withoutSerializer("import { X } from './serializer.js';"), /no longer imports ObjectSerializer/);
    assert.throws(() => withoutSerializer("import { ObjectSerializer } from './serializer.js';\nObjectSerializer.serialize(x, 'V1Pod');"), /more than strings/);
  });
});
