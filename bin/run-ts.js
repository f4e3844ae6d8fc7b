// Runs one of the TypeScript commands in bin/ on the pinned Node.js 24 (it strips types), whichever
// node started the launcher: `npx flotillactl` in the repository, or an installed bin.
import { spawn } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export function runTs(script) {
  const here = dirname(realpathSync(fileURLToPath(import.meta.url)));
  const pinned = join(here, "..", "node_modules", "node", "bin", "node");
  const major = Number(process.versions.node.split(".")[0]);
  const node = existsSync(pinned) ? pinned : major >= 24 ? process.execPath : undefined;
  if (node === undefined) {
    console.error(`${script.replace(/\.ts$/, "")}: needs Node.js 24; run \`npm ci\` in ${join(here, "..")} (it installs the pinned one)`);
    process.exit(1);
  }
  // The file that was started (a link such as kubectl-flotilla names the program in messages).
  const env = { ...process.env, FLOTILLA_INVOKED_AS: process.argv[1] ?? "" };
  const child = spawn(node, [join(here, script), ...process.argv.slice(2)], { stdio: "inherit", env });
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(sig, () => child.kill(sig));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
