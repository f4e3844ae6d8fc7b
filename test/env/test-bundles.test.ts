import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile, readlink, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { PARSED_CRDS_FILE, parseCrdFiles } from "../../control-plane/crd-install/crds.ts";
import { ensureTestBundles, isBundledSource, SOURCES, sourcesHash } from "./test-bundles.ts";

describe("isBundledSource", () => {
  const cases: [string, boolean][] = [
    ["agent/work/work-runner.ts", true],
    ["control-plane/crds/policy.yaml", true],
    ["shared/interpreter/lua/fengari.ts", true],
    ["agent/work-runner.test.ts", false],
    ["control-plane/admin.fixtures.ts", false],
    ["agent/README.md", false],
    ["control-plane/dashboard/web-dist/app.js", false],
  ];
  for (const [path, want] of cases) it(`${path} → ${want}`, () => assert.equal(isBundledSource(path), want));
});

describe("sourcesHash", () => {
  const a = { path: "a.ts", content: Buffer.from("x") };
  const b = { path: "b.ts", content: Buffer.from("y") };
  it("does not depend on the files' order", () => assert.equal(sourcesHash([a, b]), sourcesHash([b, a])));
  it("changes with a file's content, its path, or one more file", () => {
    const base = sourcesHash([a, b]);
    assert.notEqual(sourcesHash([a, { ...b, content: Buffer.from("z") }]), base);
    assert.notEqual(sourcesHash([a, { ...b, path: "c.ts" }]), base);
    assert.notEqual(sourcesHash([a, b, { path: "d.ts", content: Buffer.from("") }]), base);
  });
  it("keeps a path's end apart from the next content", () => {
    assert.notEqual(sourcesHash([{ path: "ab", content: Buffer.from("c") }]), sourcesHash([{ path: "a", content: Buffer.from("bc") }]));
  });
});

describe("ensureTestBundles", () => {
  it("gives bundles of the current sources that run, with the control plane's CRDs beside them", async () => {
    if (process.env.FLOTILLA_TEST_FROM_SOURCE === "1") {
      assert.deepEqual(await ensureTestBundles(), SOURCES);
      return;
    }
    const b = await ensureTestBundles();
    assert.ok(b.flotillactl.endsWith(".mjs"));
    assert.equal(await ensureTestBundles(), await ensureTestBundles(), "once per process");
    const dir = dirname(b.flotilla);
    assert.ok((await stat(join(dir, "lease-worker.mjs"))).isFile());
    assert.ok((await stat(join(dir, "lua-worker.mjs"))).isFile());
    assert.match(await readlink(join(dir, "crds")), /control-plane\/crds$/);
    // The CRDs the bundled control plane installs: the YAML files, parsed at build time.
    assert.deepEqual(JSON.parse(await readFile(join(dir, PARSED_CRDS_FILE), "utf8")), await parseCrdFiles());
    const usage = await promisify(execFile)(process.execPath, [b.flotillactl, "help"]);
    assert.match(usage.stdout, /flotillactl/);
    const agent = await promisify(execFile)(process.execPath, [b.agent, "agent", "--help"]).catch((e: { stdout: string; stderr: string }) => e);
    assert.match(agent.stdout + agent.stderr, /--cluster-name/);
  });
});
