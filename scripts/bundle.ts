// Bundles the processes for production with esbuild (issue 25), one ES module per process, each
// with its dependencies in and client-node's generated API left out (scripts/lean-client-node.ts):
//   agent.mjs     `flotilla agent` alone (bin/agent-bundle.ts), what every member runs, with what an
//                 idle agent never runs beside it (issue 42): what it imports at first use
//                 (import()) in chunks, agent.<name>-<hash>.mjs (the Lua runtime, @peculiar/x509),
//                 and the packages client-node loads for what the agent does not do (undici, the
//                 proxies) in agent.lazy.cjs (scripts/lean-agent.ts);
//   flotilla.mjs  every `flotilla` command (bin/flotilla.ts): the control plane and `certs …`;
//   lease-worker.mjs  the control plane's leader-election thread (control-plane/leadership/lease-worker.ts);
//   lua-worker.mjs    the Lua thread of any process that runs customizations (shared/interpreter/lua/lua-worker.ts);
// beside them what the control plane reads from its own directory at run time (crds.json, its CRDs
// parsed from crds/ at build time, crds/ itself, and the dashboard's web-dist/) and what both
// processes read there (mcs-crds/, the members' MCS CRDs: shared/mcs-crds.ts), the licence of every bundled package (<bundle>.THIRD-PARTY-NOTICES.txt,
// and the legal comments esbuild keeps in <bundle>.LEGAL.txt), and a source map per bundle kept as
// a build artifact (<bundle>.map: the image leaves it out, and production does not turn on
// --enable-source-maps). The image runs these (Dockerfile); development and tests keep running the
// TypeScript sources.
//   node scripts/bundle.ts [--out DIR]   (default dist/bundle)
import { cp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type BuildOptions, type Metafile, type Plugin } from "esbuild";
import { writeParsedCrds } from "../control-plane/crd-install/crds.ts";
import { buildDashboard } from "./build-dashboard.ts";
import { buildLazyPackages, lazyFileName, leanAgent } from "./lean-agent.ts";
import { leanClientNode } from "./lean-client-node.ts";

export const DEFAULT_BUNDLE_DIR = fileURLToPath(new URL("../dist/bundle/", import.meta.url));

/** The processes bundled: the output's name and its entry point. */
export const BUNDLES = {
  agent: "../bin/agent-bundle.ts",
  flotilla: "../bin/flotilla.ts",
  "lease-worker": "../control-plane/leadership/lease-worker.ts",
  "lua-worker": "../shared/interpreter/lua/lua-worker.ts",
} as const;
export type BundleName = keyof typeof BUNDLES;

/**
 * The bundles built lazy (buildBundle's `lazy`): what the process may never run is not even
 * parsed until first used. The others keep everything in their one module (a dynamic import there
 * only defers running the code).
 */
export const LAZY_BUNDLES: ReadonlySet<string> = new Set<BundleName>(["agent"]);

const FENGARI_LOADER = /[\\/]shared[\\/]interpreter[\\/]lua[\\/]fengari\.ts$/;
const LOCAL_REQUIRE = "const require = createRequire(import.meta.url);";

/**
 * fengari.ts loads fengari lazily through a require of its own (createRequire), which a bundler
 * leaves to run time, when there is no node_modules. Without that local binding its require()
 * calls are the module's own, which esbuild bundles (still run only on the first call).
 */
export function withBundledRequire(source: string): string {
  if (!source.includes(LOCAL_REQUIRE)) throw new Error(`fengari.ts no longer makes its require with createRequire(import.meta.url): review scripts/bundle.ts`);
  return source.replaceAll(LOCAL_REQUIRE, "");
}

const bundledFengari: Plugin = {
  name: "bundled-fengari",
  setup(b) {
    b.onLoad({ filter: FENGARI_LOADER }, async (args) => ({ contents: withBundledRequire(await readFile(args.path, "utf8")), loader: "ts" }));
  },
};

/** Builds one process's bundle into `out`; returns its path and esbuild's metafile. */
export async function bundle(name: BundleName, out = DEFAULT_BUNDLE_DIR): Promise<{ file: string; metafile: Metafile }> {
  await mkdir(out, { recursive: true });
  const file = `${out.replace(/\/$/, "")}/${name}.mjs`;
  const metafile = await buildBundle(fileURLToPath(new URL(BUNDLES[name], import.meta.url)), file, { production: true, lazy: LAZY_BUNDLES.has(name) });
  await writeFile(`${file}.THIRD-PARTY-NOTICES.txt`, await thirdPartyNotices(name, metafile));
  return { file, metafile };
}

/**
 * esbuild's bundle of one entry point into one ES module, as the processes run it: client-node's
 * generated API left out, fengari bundled. production: minified, with an external source map and
 * linked legal comments (the image's bundles); without it, names and layout kept and nothing
 * beside the module (what the tests run, test/env/test-bundles.ts). lazy: each dynamic import's
 * code in a chunk beside the module (`<name>.<chunk>-<hash>.mjs`), parsed only when first
 * imported; beside it, not in a folder, so that what a chunk finds beside its own URL (the Lua
 * worker, mcs-crds/) is what the module finds; and scripts/lean-agent.ts's plugin, with its
 * `<name>.lazy.cjs`. The metafile returned covers every file written.
 */
export async function buildBundle(entry: string, outfile: string, o: { production: boolean; lazy?: boolean }): Promise<Metafile> {
  const name = basename(outfile, ".mjs");
  const outdir = dirname(outfile);
  const lazy = o.lazy === true;
  // A rebuild's chunks have other hashes: the last build's go, so that none is left unused beside the module.
  if (lazy) await removeChunks(outdir, name);
  const common: BuildOptions = {
    bundle: true,
    platform: "node",
    target: "node24",
    minify: o.production,
    sourcemap: o.production ? "external" : false,
    legalComments: o.production ? "linked" : "none",
    logLevel: "warning",
  };
  const result = await build({
    ...common,
    entryPoints: { [name]: entry },
    outdir,
    outExtension: { ".js": ".mjs" },
    splitting: lazy,
    chunkNames: `${name}.[name]-[hash]`,
    format: "esm",
    metafile: true,
    plugins: [...(lazy ? [leanAgent(lazyFileName(name))] : []), leanClientNode, bundledFengari],
    // Bundled CommonJS dependencies call require(); an ES module has none of its own.
    banner: { js: 'import { createRequire as __flotillaRequire } from "node:module"; const require = __flotillaRequire(import.meta.url);' },
  });
  if (!lazy) return result.metafile;
  const side = await buildLazyPackages(outdir, lazyFileName(name), common);
  return { inputs: { ...result.metafile.inputs, ...side.inputs }, outputs: { ...result.metafile.outputs, ...side.outputs } };
}

/** Removes the chunks (and their maps and legal comments) of bundle `name` from `dir`. */
async function removeChunks(dir: string, name: string): Promise<void> {
  const chunk = new RegExp(`^${name}\\.[\\w-]+-[A-Z0-9]+\\.mjs(\\.map|\\.LEGAL\\.txt)?$`);
  for (const f of await readdir(dir).catch(() => [] as string[])) if (chunk.test(f)) await rm(`${dir}/${f}`, { force: true });
}

/** The agent's bundle, and what it loads from beside it: the Lua thread's, the MCS CRDs (bench:agent-rss --bundle, the bundle test). */
export async function bundleAgent(out = DEFAULT_BUNDLE_DIR): Promise<{ file: string; metafile: Metafile }> {
  await bundle("lua-worker", out);
  await copyMcsCrds(out);
  return bundle("agent", out);
}

/** The members' MCS CRDs (shared/mcs-crds/), which shared/mcs-crds.ts reads from mcs-crds/ beside the bundle. */
export async function copyMcsCrds(out: string): Promise<void> {
  await cp(fileURLToPath(new URL("../shared/mcs-crds/", import.meta.url)), `${out.replace(/\/$/, "")}/${MCS_CRDS_BESIDE}`, { recursive: true });
}

/** The folder's name beside a bundle, as beside shared/mcs-crds.ts. */
export const MCS_CRDS_BESIDE = "mcs-crds";

/** Every bundle, with the CRDs and the dashboard beside them: what the image runs. */
export async function bundleAll(out = DEFAULT_BUNDLE_DIR): Promise<Record<BundleName, { file: string; metafile: Metafile }>> {
  const agent = await bundle("agent", out);
  const flotilla = await bundle("flotilla", out);
  // The control plane's leader-election thread (control-plane/leadership/lease-thread.ts) loads it from beside flotilla.mjs.
  const leaseWorker = await bundle("lease-worker", out);
  // Every process that runs Lua (shared/interpreter/lua/lua-thread.ts) loads it from beside its bundle.
  const luaWorker = await bundle("lua-worker", out);
  await cp(fileURLToPath(new URL("../control-plane/crds/", import.meta.url)), `${out}/crds`, { recursive: true });
  await writeParsedCrds(out);
  await copyMcsCrds(out);
  await buildDashboard(`${out}/web-dist`);
  return { agent, flotilla, "lease-worker": leaseWorker, "lua-worker": luaWorker };
}

/** Each bundled package's name, version, licence and licence file, from the inputs esbuild read. */
export async function thirdPartyNotices(name: BundleName, metafile: Metafile): Promise<string> {
  const dirs = new Set<string>();
  for (const input of Object.keys(metafile.inputs)) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m?.[1] !== undefined) dirs.add(m[1]);
  }
  const parts: string[] = [];
  for (const dir of [...dirs].sort()) {
    const pkg = JSON.parse(await readFile(`${dir}/package.json`, "utf8")) as { name: string; version: string; license?: string };
    const licenceFile = (await readdir(dir)).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
    const text = licenceFile === undefined ? `(no licence file in the package; package.json says ${pkg.license ?? "nothing"})` : (await readFile(`${dir}/${licenceFile}`, "utf8")).trim();
    parts.push(`${pkg.name} ${pkg.version} (${pkg.license ?? "unknown"})\n\n${text}`);
  }
  return `Flotilla's ${name} bundle includes these packages:\n\n${parts.join("\n\n----------------------------------------\n\n")}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--out");
  const out = i > 0 ? process.argv[i + 1] : undefined;
  for (const [name, { file, metafile }] of Object.entries(await bundleAll(out))) {
    const bytes = Object.entries(metafile.outputs).find(([k]) => k.endsWith(`${name}.mjs`))?.[1].bytes;
    console.log(`${name} bundle: ${file} (${bytes ?? "?"} bytes)`);
  }
}
