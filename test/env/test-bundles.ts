// The Flotilla processes that tests start (control planes, agents, flotillactl) run from bundles of
// the current sources, built as the image's are (scripts/bundle.ts) but not minified. A process
// started from the TypeScript sources spends about a second of CPU loading some 1,500 modules
// (client-node's generated API most); from a bundle it starts in a quarter of that: a fleet's
// Flotilla took 7 s and 6.8 s of CPU from source, 4.6 s and 3.2 s from bundles (2026-11-29,
// docs/development/testing.md). The bundles are kept in dist/test-bundle/<hash of the sources>/,
// so a change to any source builds new ones (about 7 s) the next time a test needs them; the
// global setup builds them first. FLOTILLA_TEST_FROM_SOURCE=1 runs the sources instead.
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const TEST_BUNDLE_DIR = join(ROOT, "dist", "test-bundle");

/** The directories whose sources go into the bundles, and the files beside them that shape a build. */
const SOURCE_DIRS = ["agent", "control-plane", "shared", "bin"];
const BUILD_FILES = ["package.json", "package-lock.json", "tsconfig.json", "scripts/bundle.ts", "scripts/lean-client-node.ts", "scripts/lean-agent.ts", "test/env/test-bundles.ts"];

/**
 * Each bundle and its entry point. The control plane loads lease-worker.mjs from beside
 * flotilla.mjs, and every process that runs Lua loads lua-worker.mjs from beside its own bundle.
 */
const ENTRIES = {
  flotilla: "bin/flotilla.ts",
  agent: "bin/agent-bundle.ts",
  "lease-worker": "control-plane/leadership/lease-worker.ts",
  "lua-worker": "shared/interpreter/lua/lua-worker.ts",
  flotillactl: "bin/flotillactl.ts",
} as const;

/** Where the processes' entry points are: the bundles, or the sources. */
export interface TestBundles {
  /** `flotilla` with every command: what control planes run. */
  flotilla: string;
  /** `flotilla agent` alone. */
  agent: string;
  flotillactl: string;
}

export const SOURCES: TestBundles = { flotilla: join(ROOT, "bin/flotilla.ts"), agent: join(ROOT, "bin/flotilla.ts"), flotillactl: join(ROOT, "bin/flotillactl.ts") };

/** Whether a file under SOURCE_DIRS can be part of a bundle: not a test, and not the built dashboard. */
export function isBundledSource(path: string): boolean {
  if (/\.test\.ts$|\.fixtures\.ts$|(^|\/)README\.md$/.test(path)) return false;
  return !path.split("/").includes("web-dist");
}

/** One hash of the files' paths and contents, in path order. */
export function sourcesHash(files: readonly { path: string; content: Buffer }[]): string {
  const h = createHash("sha256");
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) h.update(`${f.path}\0${f.content.length}\0`).update(f.content);
  return h.digest("hex").slice(0, 16);
}

let ensured: Promise<TestBundles> | undefined;

/** The bundles of the current sources, built when there are none yet (once per process). */
export function ensureTestBundles(): Promise<TestBundles> {
  if (process.env.FLOTILLA_TEST_FROM_SOURCE === "1") return Promise.resolve(SOURCES);
  return (ensured ??= buildIfMissing());
}

async function buildIfMissing(): Promise<TestBundles> {
  const hash = sourcesHash(await readSources());
  const dir = join(TEST_BUNDLE_DIR, hash);
  const bundles: TestBundles = { flotilla: join(dir, "flotilla.mjs"), agent: join(dir, "agent.mjs"), flotillactl: join(dir, "flotillactl.mjs") };
  if (await exists(join(dir, "done"))) {
    // Marks them used: only bundles no test used for an hour are pruned (pruneOthers).
    await utimes(dir, new Date(), new Date()).catch(() => undefined);
    return bundles;
  }
  // Built aside and renamed into place, so a parallel test file never runs a half-written bundle;
  // when two build at once, the first rename wins and the other's copy goes.
  const tmp = `${dir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  try {
    const { buildBundle, LAZY_BUNDLES } = await import("../../scripts/bundle.ts");
    await Promise.all(Object.entries(ENTRIES).map(([name, entry]) => buildBundle(join(ROOT, entry), join(tmp, `${name}.mjs`), { production: false, lazy: LAZY_BUNDLES.has(name) })));
    // The control plane reads its CRDs and the dashboard's page from beside its module.
    await symlink(join(ROOT, "control-plane", "crds"), join(tmp, "crds"));
    const { writeParsedCrds } = await import("../../control-plane/crd-install/crds.ts");
    await writeParsedCrds(tmp);
    await symlink(join(ROOT, "control-plane", "dashboard", "web-dist"), join(tmp, "web-dist"));
    // Agents and control planes read the members' MCS CRDs from beside their module (shared/mcs-crds.ts).
    await symlink(join(ROOT, "shared", "mcs-crds"), join(tmp, "mcs-crds"));
    await writeFile(join(tmp, "done"), `${new Date().toISOString()}\n`);
    await rename(tmp, dir).catch((err: NodeJS.ErrnoException) => {
      // Another process put the same bundles there first: ours go (finally).
      if (!["ENOTEMPTY", "EEXIST"].includes(err.code ?? "")) throw err;
    });
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  await pruneOthers(hash);
  return bundles;
}

async function readSources(): Promise<{ path: string; content: Buffer }[]> {
  const paths = [...BUILD_FILES];
  for (const d of SOURCE_DIRS) {
    for (const entry of await readdir(join(ROOT, d), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const path = relative(ROOT, join(entry.parentPath, entry.name));
      if (isBundledSource(path)) paths.push(path);
    }
  }
  return Promise.all(paths.map(async (path) => ({ path, content: await readFile(join(ROOT, path)) })));
}

/** Bundles of other sources that no test used for an hour (and builds a killed process left) go. */
async function pruneOthers(keep: string): Promise<void> {
  const hourAgo = Date.now() - 3_600_000;
  for (const name of await readdir(TEST_BUNDLE_DIR).catch(() => [] as string[])) {
    if (name === keep) continue;
    const path = join(TEST_BUNDLE_DIR, name);
    const s = await stat(path).catch(() => undefined);
    if (s !== undefined && s.mtimeMs < hourAgo) await rm(path, { recursive: true, force: true });
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
