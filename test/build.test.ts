// `npm run build` emits JavaScript that runs without TypeScript (what a container image ships).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { it } from "node:test";
import { waitFor } from "./env/wait.ts";

const run = promisify(execFile);
const root = fileURLToPath(new URL("..", import.meta.url));

it("the compiled flotilla command runs and finds its CRDs", async (t) => {
  const out = mkdtempSync(join(tmpdir(), "flotilla-build-"));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  // `npm test` type-checks with emit into FLOTILLA_COMPILED_DIR beside the suite
  // (scripts/lint-and-typecheck.sh, which writes tsc's exit code to <dir>.exit when it is done):
  // the same tsc output, so the suite compiles once. Run alone, this test compiles itself.
  const compiled = process.env.FLOTILLA_COMPILED_DIR;
  if (compiled !== undefined && compiled !== "") {
    const exit = await waitFor(() => readFile(join(root, `${compiled}.exit`), "utf8").catch(() => undefined), { what: `${compiled}.exit (the type check beside the suite)`, timeoutMs: 500_000, intervalMs: 1000 });
    assert.equal(exit.trim(), "0", `the type check that wrote ${compiled} failed`);
    cpSync(join(root, compiled), out, { recursive: true });
  }
  else await run(join(root, "node_modules/.bin/tsc"), ["-p", join(root, "tsconfig.json"), "--outDir", out], { cwd: root });
  cpSync(join(root, "control-plane/crds"), join(out, "control-plane/crds"), { recursive: true });
  cpSync(join(root, "shared/mcs-crds"), join(out, "shared/mcs-crds"), { recursive: true });
  // What an image would hold next to dist/: package.json (ESM) and the installed dependencies.
  cpSync(join(root, "package.json"), join(out, "package.json"));
  symlinkSync(join(root, "node_modules"), join(out, "node_modules"));
  const help = await run(process.execPath, [join(out, "bin/flotilla.js"), "help"]);
  assert.match(help.stdout, /flotilla control-plane/);
  const crds = await run(process.execPath, ["--input-type=module", "-e", `const m = await import(${JSON.stringify(join(out, "control-plane/crd-install/crds.js"))}); console.log((await m.loadCrds()).map((c) => c.metadata.name).join(","));`]);
  // Every CRD file in control-plane/crds (one CRD each): Flotilla's kinds and the multi-cluster DNS kinds.
  const files = readdirSync(join(root, "control-plane/crds")).filter((f) => f.endsWith(".yaml"));
  assert.equal(crds.stdout.trim().split(",").length, files.length);
  assert.ok(crds.stdout.includes("servicednsrecords.multiclusterdns.flotilla.dev"), crds.stdout);
  // And the members' MCS CRDs, beside shared/mcs-crds.js as `npm run build` copies them.
  const mcs = await run(process.execPath, ["--input-type=module", "-e", `const m = await import(${JSON.stringify(join(out, "shared/mcs-crds.js"))}); console.log((await m.loadMcsCrds()).map((c) => c.metadata.name).join(","));`]);
  assert.equal(mcs.stdout.trim(), "clusterproperties.about.k8s.io,serviceexports.multicluster.x-k8s.io,serviceimports.multicluster.x-k8s.io");
});
