import assert from "node:assert/strict";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { nodeCompileCacheDir } from "./compile-cache.ts";

describe("nodeCompileCacheDir", () => {
  const cases: { name: string; env: NodeJS.ProcessEnv; want: string }[] = [
    { name: "NODE_COMPILE_CACHE wins", env: { NODE_COMPILE_CACHE: "/x/ncc", FLOTILLA_CACHE_DIR: "/c" }, want: "/x/ncc" },
    { name: "in FLOTILLA_CACHE_DIR, as the binaries", env: { FLOTILLA_CACHE_DIR: "/c", XDG_CACHE_HOME: "/xdg" }, want: "/c/node-compile-cache" },
    { name: "in XDG_CACHE_HOME/flotilla", env: { XDG_CACHE_HOME: "/xdg" }, want: "/xdg/flotilla/node-compile-cache" },
    { name: "in ~/.cache/flotilla by default", env: {}, want: join(homedir(), ".cache", "flotilla", "node-compile-cache") },
    { name: "an empty variable counts as unset (as in build-binaries.sh)", env: { NODE_COMPILE_CACHE: "", FLOTILLA_CACHE_DIR: "" }, want: join(homedir(), ".cache", "flotilla", "node-compile-cache") },
  ];
  for (const c of cases) it(c.name, () => assert.equal(nodeCompileCacheDir(c.env), c.want));
});
