// Builds the web dashboard (issue 24): control-plane/dashboard/web/ → one minified ES module
// (Lit bundled in; the page loads nothing from elsewhere, so it works offline), its stylesheet,
// its page, and the bundled packages' licence notices. `npm run build` writes it beside the
// compiled control plane; tests and `npm run up` run from source and build it beside the source.
//   node scripts/build-dashboard.ts [--out DIR]   (default: control-plane/dashboard/web-dist)
import { copyFile, mkdir, rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const WEB = new URL("../control-plane/dashboard/web/", import.meta.url);
export const DEFAULT_OUT = fileURLToPath(new URL("../control-plane/dashboard/web-dist/", import.meta.url));

/** Builds into `out` (replaced whole); returns the bundle's size in bytes. */
export async function buildDashboard(out = DEFAULT_OUT): Promise<number> {
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const result = await build({
    entryPoints: [fileURLToPath(new URL("app.ts", WEB))],
    outfile: `${out}/app.js`,
    bundle: true,
    minify: true,
    format: "esm",
    target: "es2022",
    platform: "browser",
    define: { "process.env.NODE_ENV": '"production"' },
    legalComments: "linked",
    metafile: true,
    logLevel: "warning",
  });
  await copyFile(new URL("index.html", WEB), `${out}/index.html`);
  await copyFile(new URL("app.css", WEB), `${out}/app.css`);
  return Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--out");
  const out = i > 0 ? process.argv[i + 1] : undefined;
  const bytes = await buildDashboard(out);
  console.log(`dashboard built into ${out ?? DEFAULT_OUT} (${bytes} bytes)`);
}
