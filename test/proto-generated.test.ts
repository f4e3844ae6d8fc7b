// shared/gen is committed generated code: it must be exactly what scripts/gen-proto.sh makes.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { it } from "node:test";

const root = fileURLToPath(new URL("..", import.meta.url));
const exec = promisify(execFile);

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

it("regenerating the protocol code changes nothing in shared/gen", async (t) => {
  const out = await mkdtemp(join(tmpdir(), "flotilla-gen-"));
  t.after(() => rm(out, { recursive: true, force: true }));
  await exec("bash", [join(root, "scripts/gen-proto.sh"), out]);
  const committed = join(root, "shared/gen");
  const [want, got] = await Promise.all([listFiles(committed), listFiles(out)]);
  assert.deepEqual(got, want, "the same files");
  assert.ok(want.includes("flotilla/v1alpha1/agent.ts"));
  for (const file of want) {
    const [a, b] = await Promise.all([readFile(join(committed, file), "utf8"), readFile(join(out, file), "utf8")]);
    assert.ok(a === b, `shared/gen/${file} is stale: run npm run gen:proto`);
  }
});
