// The production bundles (issue 25): the agent's holds none of client-node's generated models (an
// upgrade that brings them back fails here), both run, `flotilla`'s carries fengari inside (no
// require left to run time, when there is no node_modules), and the plugins refuse a source whose
// shape they no longer know rather than bundling it wrong. The agent's leaves what an idle agent
// never runs beside its module (issue 42), where the first use finds it.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { bundle, bundleAgent, buildBundle, withBundledRequire } from "../scripts/bundle.ts";
import { esShim, importedNames } from "../scripts/lean-agent.ts";
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

  it("leaves the Lua runtime and @peculiar/x509 in chunks beside it, and undici in agent.lazy.cjs", async () => {
    const files = await readdir(dir);
    const text = async (f: string) => readFile(join(dir, f), "utf8");
    const main = await text("agent.mjs");
    for (const marker of ["luaL_newstate", "Pkcs10CertificateRequestGenerator", "UND_ERR_CONNECT_TIMEOUT"]) assert.equal(main.includes(marker), false, `agent.mjs holds ${marker}`);
    const chunks = files.filter((f) => /^agent\..+\.mjs$/.test(f));
    assert.ok((await Promise.all(chunks.map(text))).some((t) => t.includes("luaL_newstate")), `no chunk holds the Lua runtime: ${chunks.join(", ")}`);
    assert.ok((await Promise.all(chunks.map(text))).some((t) => t.includes("Pkcs10CertificateRequestGenerator")), "no chunk holds @peculiar/x509");
    assert.match(await text("agent.lazy.cjs"), /UND_ERR_CONNECT_TIMEOUT/);
    assert.doesNotMatch(main, /from\s*"node:(?!module")/, "agent.mjs imports a Node.js module as an ES module (require it: scripts/lean-agent.ts)");
  });

  it("keeps every bundled package's licence and the source map beside it", async () => {
    const notices = await readFile(`${file}.THIRD-PARTY-NOTICES.txt`, "utf8");
    for (const pkg of ["@kubernetes/client-node", "@grpc/grpc-js", "pino", "undici"]) assert.match(notices, new RegExp(`^${pkg} \\d+\\.\\d+\\.\\d+ \\(`, "m"), pkg);
    assert.doesNotMatch(notices, /no licence file in the package; package.json says nothing/);
    assert.equal((JSON.parse(await readFile(`${file}.map`, "utf8")) as { version: number }).version, 3);
  });
});

describe("a lazy bundle (scripts/lean-agent.ts)", () => {
  it("loads a lazy package at its first use: client-node's own Watch, through undici's fetch", async () => {
    const dir = await mkdtemp(join(tmpdir(), "flotilla-bundle-"));
    const server = createServer((_req, res) => {
      res.writeHead(200);
      res.write('{"type":"ADDED","object":{}}\n');
    });
    try {
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      const file = join(dir, "watch.mjs");
      await buildBundle(new URL("./bundle-lazy-watch.fixtures.ts", import.meta.url).pathname, file, { production: true, lazy: true });
      const { stdout } = await promisify(execFile)(process.execPath, [file, `http://127.0.0.1:${(server.address() as AddressInfo).port}`]);
      assert.equal(stdout, "ADDED\n");
    } finally {
      server.closeAllConnections();
      server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reads the names client-node imports, and refuses an import it does not know", () => {
    const src = "import { Agent as UndiciAgent, ProxyAgent as P, } from 'undici';\nimport * as jp from 'jsonpath-plus';\nimport { fetch } from 'undici';";
    assert.deepEqual(importedNames(src, "undici"), ["Agent", "ProxyAgent", "fetch"]);
    assert.deepEqual(importedNames(src, "jsonpath-plus"), ["*"]);
    assert.throws(() => importedNames("import undici from 'undici';", "undici"), /does not know/);
  });

  it("makes a shim whose exports load the package at first use", () => {
    const shim = esShim("undici", ["Agent", "fetch"], "agent.lazy.cjs");
    assert.match(shim, /require\("\.\/agent\.lazy\.cjs"\)\["undici"\]\(\)/);
    assert.match(shim, /export const Agent = lazy\("Agent"\);/);
    assert.match(shim, /export const fetch = lazy\("fetch"\);/);
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
