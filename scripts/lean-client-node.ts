// An esbuild plugin that keeps @kubernetes/client-node's generated API out of a bundle (issue
// 25): every file of the package's dist is side-effect free except its polyfill, so the
// re-exports nobody uses are dropped, and the list-watch's one use of the generated
// ObjectSerializer (serialising a label or field selector, always a string) becomes String(),
// which is what the serializer does for the type 'string'. A bundle test fails when an upgrade
// brings the models back.
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Plugin } from "esbuild";

const DIST = "/@kubernetes/client-node/dist/";
const SERIALIZER_IMPORT = "import { ObjectSerializer } from './serializer.js';";
const STRING_SERIALIZE = /ObjectSerializer\.serialize\(([^,()]+), 'string'\)/g;

/** cache.js without the generated serializer; throws when the source no longer has the shape this relies on. */
export function withoutSerializer(source: string): string {
  if (!source.includes(SERIALIZER_IMPORT)) throw new Error(`client-node's cache.js no longer imports ObjectSerializer as expected: review scripts/lean-client-node.ts`);
  const out = source.replace(SERIALIZER_IMPORT, "").replace(STRING_SERIALIZE, "String($1)");
  if (out.includes("ObjectSerializer")) throw new Error("client-node's cache.js uses ObjectSerializer for more than strings: review scripts/lean-client-node.ts");
  return out;
}

export const leanClientNode: Plugin = {
  name: "lean-client-node",
  setup(build) {
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === "lean-client-node") return undefined;
      if (!args.path.startsWith("@kubernetes/client-node") && !args.resolveDir.includes("/@kubernetes/client-node/")) return undefined;
      // The package's own relative imports name their files (`./x.js`): resolved here, without a
      // round trip to esbuild for each of its thousands of files (15 s a bundle, measured).
      const relative = args.path.startsWith("./") || args.path.startsWith("../") ? resolve(args.resolveDir, args.path) : undefined;
      if (relative !== undefined && relative.endsWith(".js") && relative.includes(DIST)) return { path: relative, sideEffects: relative.endsWith("/polyfill.js") };
      const r = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: "lean-client-node" });
      if (r.errors.length > 0 || !r.path.includes(DIST)) return undefined;
      return { path: r.path, sideEffects: r.path.endsWith("/polyfill.js") };
    });
    build.onLoad({ filter: /[\\/]@kubernetes[\\/]client-node[\\/]dist[\\/]cache\.js$/ }, async (args) => ({ contents: withoutSerializer(await readFile(args.path, "utf8")), loader: "js" }));
  },
};
