// Bundles the agent for production with esbuild (issue 25): dist/bundle/agent.mjs, one ES module
// with its dependencies in, client-node's generated API left out (scripts/lean-client-node.ts),
// the licence of every bundled package beside it (agent.mjs.THIRD-PARTY-NOTICES.txt, and the
// legal comments esbuild keeps in agent.mjs.LEGAL.txt) and a source map kept as a build artifact
// (agent.mjs.map; production does not turn on --enable-source-maps). Development and tests keep
// running the TypeScript sources.
//   node scripts/bundle.ts [--out DIR]   (default dist/bundle)
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build, type Metafile } from "esbuild";
import { leanClientNode } from "./lean-client-node.ts";

export const DEFAULT_BUNDLE_DIR = fileURLToPath(new URL("../dist/bundle/", import.meta.url));

/** Builds the agent's bundle into `out`; returns its path and esbuild's metafile. */
export async function bundleAgent(out = DEFAULT_BUNDLE_DIR): Promise<{ file: string; metafile: Metafile }> {
  await mkdir(out, { recursive: true });
  const file = `${out.replace(/\/$/, "")}/agent.mjs`;
  const result = await build({
    entryPoints: [fileURLToPath(new URL("../bin/agent-bundle.ts", import.meta.url))],
    outfile: file,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node24",
    minify: true,
    sourcemap: "external",
    legalComments: "linked",
    metafile: true,
    logLevel: "warning",
    plugins: [leanClientNode],
    // Bundled CommonJS dependencies call require(); an ES module has none of its own.
    banner: { js: 'import { createRequire as __flotillaRequire } from "node:module"; const require = __flotillaRequire(import.meta.url);' },
  });
  await writeFile(`${file}.THIRD-PARTY-NOTICES.txt`, await thirdPartyNotices(result.metafile));
  return { file, metafile: result.metafile };
}

/** Each bundled package's name, version, licence and licence file, from the inputs esbuild read. */
export async function thirdPartyNotices(metafile: Metafile): Promise<string> {
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
  return `Flotilla's agent bundle includes these packages:\n\n${parts.join("\n\n----------------------------------------\n\n")}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--out");
  const { file, metafile } = await bundleAgent(i > 0 ? process.argv[i + 1] : undefined);
  console.log(`agent bundle: ${file} (${metafile.outputs[Object.keys(metafile.outputs).find((k) => k.endsWith("agent.mjs")) ?? ""]?.bytes ?? "?"} bytes)`);
}
