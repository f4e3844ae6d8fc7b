// What keeps the agent's bundle from loading code an idle agent never runs (issue 42), beside the
// chunks of its dynamic imports (scripts/bundle.ts):
// - Node.js's own modules by require(), not by an ES import: an ES import of node:http builds the
//   module's namespace, which reads its lazy exports and so loads Node's fetch (its undici), web
//   streams, worker_threads and perf_hooks (a bare `node` importing node:http: 60.8 MiB of RSS,
//   requiring it: 46.7 MiB);
// - packages client-node imports for what the agent never does (fetch-based calls, which its
//   informers do not make: shared/kube-watch.ts; proxies; cloud auth providers) and the proto
//   loader grpc-js needs only for ORCA and channelz, in a CommonJS file of their own beside the
//   bundle, `<name>.lazy.cjs`, which the first call into one of them loads. Each such import is
//   checked against the package at build time: a client-node upgrade that imports another name,
//   or a value that is not a function, fails the build rather than bundling it wrong.
import { readdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { builtinModules, createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { build, type BuildOptions, type Metafile, type Plugin } from "esbuild";

/** The lazily loaded packages, and whose imports of them are redirected ("client-node": its ES imports; "require": CommonJS requires). */
export const LAZY_PACKAGES = {
  undici: "client-node",
  socks: "client-node",
  "socks-proxy-agent": "client-node",
  hpagent: "client-node",
  "jsonpath-plus": "client-node",
  "@grpc/proto-loader": "require",
} as const;
type LazyPackage = keyof typeof LAZY_PACKAGES;

const CLIENT_NODE_DIST = "/@kubernetes/client-node/dist/";
const BUILTIN = new RegExp(`^(node:)?(${builtinModules.map((m) => m.replaceAll("/", "\\/")).join("|")})$`);
const LAZY = new RegExp(`^(${Object.keys(LAZY_PACKAGES).map((p) => p.replaceAll("/", "\\/")).join("|")})$`);

/** The side file's name beside `<name>.mjs`. */
export function lazyFileName(bundleName: string): string {
  return `${bundleName}.lazy.cjs`;
}

/**
 * The names an ES module imports from `pkg`: `import { A as B, C } from 'pkg'` gives A and C;
 * `import * as ns from 'pkg'` gives "*". Any other form of import of `pkg` throws.
 */
export function importedNames(source: string, pkg: string): string[] {
  const names: string[] = [];
  const quoted = pkg.replace(/[/.-]/g, (c) => `\\${c}`);
  const any = new RegExp(`^import\\b[^;]*?from\\s*['"]${quoted}['"]`, "gm");
  for (const statement of source.match(any) ?? []) {
    const named = /^import\s*\{([^}]*)\}\s*from/.exec(statement);
    if (named) names.push(...(named[1] ?? "").split(",").map((n) => n.trim().split(/\s+as\s+/)[0] ?? "").filter((n) => n !== ""));
    else if (/^import\s*\*\s*as\s+\w+\s+from/.test(statement)) names.push("*");
    else throw new Error(`an import of ${pkg} that scripts/lean-agent.ts does not know: ${statement}`);
  }
  return names;
}

/** The ES shim of `pkg` for client-node: each name a function that loads the package at its first call, construction or property read. */
export function esShim(pkg: string, names: readonly string[], lazyFile: string): string {
  const lines = [
    `let real;`,
    `const load = () => (real ??= require(${JSON.stringify(`./${lazyFile}`)})[${JSON.stringify(pkg)}]());`,
    `const lazy = (name) => { const proxy = new Proxy(function () {}, {`,
    `  apply: (_, self, args) => Reflect.apply(load()[name], self, args),`,
    `  construct: (_, args, target) => Reflect.construct(load()[name], args, target === proxy ? load()[name] : target),`,
    `  get: (_, key) => { const v = load()[name][key]; return typeof v === "function" ? v.bind(load()[name]) : v; },`,
    `}); return proxy; };`,
  ];
  for (const name of names) lines.push(`export const ${name} = lazy(${JSON.stringify(name)});`);
  return lines.join("\n");
}

/** client-node's modules (the files of its dist/, beside `importer`), by path. */
async function clientNodeModules(importer: string): Promise<Map<string, string>> {
  const dir = dirname(importer);
  const files = (await readdir(dir)).filter((f) => f.endsWith(".js"));
  return new Map(await Promise.all(files.map(async (f) => [join(dir, f), await readFile(join(dir, f), "utf8")] as const)));
}

/** The names client-node imports from `pkg` (every export for `import * as`), each checked to be a function of the package. */
async function clientNodeImports(pkg: LazyPackage, modules: ReadonlyMap<string, string>): Promise<string[]> {
  const real = createRequire(import.meta.url)(pkg) as Record<string, unknown>;
  const names = new Set<string>();
  for (const source of modules.values()) for (const n of importedNames(source, pkg)) for (const m of n === "*" ? Object.keys(real) : [n]) names.add(m);
  for (const n of names) if (typeof real[n] !== "function") throw new Error(`client-node imports ${n} from ${pkg}, which is not a function: review scripts/lean-agent.ts`);
  return [...names].sort();
}

/** The plugin of the main build: Node.js's modules by require, the lazy packages from `lazyFile`. */
export function leanAgent(lazyFile: string): Plugin {
  return {
    name: "lean-agent",
    setup(b) {
      let clientNode: Promise<Map<string, string>> | undefined;
      b.onResolve({ filter: BUILTIN }, (a) => (a.kind === "import-statement" && a.namespace !== "node-builtin" ? { path: a.path.startsWith("node:") ? a.path : `node:${a.path}`, namespace: "node-builtin" } : undefined));
      b.onLoad({ filter: /.*/, namespace: "node-builtin" }, (a) => ({ contents: `module.exports = require(${JSON.stringify(a.path)});`, loader: "js" }));
      b.onResolve({ filter: LAZY }, (a) => {
        const pkg = a.path as LazyPackage;
        const by = LAZY_PACKAGES[pkg];
        if (by === "client-node" && a.importer.includes(CLIENT_NODE_DIST) && a.kind === "import-statement") {
          clientNode ??= clientNodeModules(a.importer);
          return { path: pkg, namespace: "lazy-es" };
        }
        if (by === "require" && a.kind === "require-call") return { path: pkg, namespace: "lazy-cjs" };
        return undefined;
      });
      b.onLoad({ filter: /.*/, namespace: "lazy-es" }, async (a) => ({ contents: esShim(a.path, await clientNodeImports(a.path as LazyPackage, await (clientNode as Promise<Map<string, string>>)), lazyFile), loader: "js" }));
      b.onLoad({ filter: /.*/, namespace: "lazy-cjs" }, (a) => ({ contents: `module.exports = require(${JSON.stringify(`./${lazyFile}`)})[${JSON.stringify(a.path)}]();`, loader: "js" }));
      // The side file is the run time's, beside the module.
      b.onResolve({ filter: new RegExp(`^\\./${lazyFile.replaceAll(".", "\\.")}$`) }, (a) => ({ path: a.path, external: true }));
    },
  };
}

/** Builds `<outdir>/<lazyFile>` with `options` (the main build's): a CommonJS module whose each key loads one lazy package. */
export async function buildLazyPackages(outdir: string, lazyFile: string, options: BuildOptions): Promise<Metafile> {
  const entry = `module.exports = {\n${Object.keys(LAZY_PACKAGES).map((p) => `  ${JSON.stringify(p)}: () => require(${JSON.stringify(p)}),`).join("\n")}\n};\n`;
  const result = await build({
    ...options,
    stdin: { contents: entry, resolveDir: fileURLToPath(new URL("../", import.meta.url)), sourcefile: "lazy-packages.cjs", loader: "js" },
    outfile: `${outdir}/${lazyFile}`,
    format: "cjs",
    metafile: true,
  });
  return result.metafile;
}
