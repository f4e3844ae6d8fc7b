import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Where the Flotilla processes a test starts keep Node's module compile cache (V8 code for every
 * module they load, TypeScript included): NODE_COMPILE_CACHE when set, else `node-compile-cache/`
 * in the cache root build-binaries.sh uses. Each control plane and agent loads the same module
 * graph; with the cache, one starts on about half the CPU (a 2-member Flotilla: 19 CPU-s to
 * ready without it, 11 with it). Node checks each entry against the module's source and its
 * own checksum, so an edited file or another checkout's copy is compiled afresh, never served
 * stale. Nothing in a process's behaviour changes.
 */
export function nodeCompileCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.NODE_COMPILE_CACHE) return env.NODE_COMPILE_CACHE;
  const root = env.FLOTILLA_CACHE_DIR || join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "flotilla");
  return join(root, "node-compile-cache");
}
