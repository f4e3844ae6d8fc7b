// Where a worker thread's entry file is, whatever form the code runs in.

/**
 * The worker entry `name` beside the module at `self`, in the same form: `name`.ts from source
 * (Node strips its types), .js built by tsc, .mjs in the production bundles (scripts/bundle.ts
 * bundles each worker as an entry of its own, beside the processes' bundles).
 */
export function workerFileBeside(self: string, name: string): URL {
  const ext = /\.(ts|mjs|js)$/.exec(new URL(self).pathname)?.[1] ?? "js";
  return new URL(`./${name}.${ext}`, self);
}
