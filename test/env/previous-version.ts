// The previous commit's Flotilla, checked out beside the current one, for upgrade tests and the
// chaos run's "replica replaced by the previous version" fault. Its sources come from
// `git archive` of the commit (FLOTILLA_UPGRADE_FROM, default HEAD~1); its node_modules is the
// current one when package-lock.json is the same, else its own `npm ci`. The previous version is
// started with the current test environment's flags, less the flags it does not know: an operator
// upgrading has a manifest written for each version, and a flag added since then is not in the
// old one.
import { execFile, spawn } from "node:child_process";
import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/** The commit the previous version is taken from, unless FLOTILLA_UPGRADE_FROM names another. */
export const DEFAULT_PREVIOUS_REVISION = "HEAD~1";

/** A previous version of Flotilla, on disk. */
export interface PreviousVersion {
  /** The commit it was taken from (40 hex). */
  commit: string;
  /** Its `git log --oneline` line, for messages. */
  title: string;
  dir: string;
  /** Its bin/flotilla.ts, to start a control plane or an agent from. */
  flotillaBin: string;
  /** The flags each of its commands knows (`control-plane`, `agent`), read from its usage text. */
  flags: Map<string, Set<string>>;
}

/**
 * Checks out `revision` (default FLOTILLA_UPGRADE_FROM or HEAD~1) of this repository into
 * `<parent>/previous`. Throws, saying what to do, when this is no git checkout or the commit is
 * not in it (a shallow clone).
 */
export async function checkoutPreviousVersion(parent: string, revision = process.env.FLOTILLA_UPGRADE_FROM ?? DEFAULT_PREVIOUS_REVISION): Promise<PreviousVersion> {
  const git = async (args: string[]) => (await run("git", ["-C", repoRoot, ...args], { maxBuffer: 1 << 20 })).stdout.trim();
  let commit: string;
  try {
    commit = await git(["rev-parse", "--verify", "--quiet", `${revision}^{commit}`]);
  } catch {
    throw new Error(
      `the previous version ${revision} is not in this checkout (${repoRoot}): upgrade tests need the repository's history (a full clone, not --depth 1), or FLOTILLA_UPGRADE_FROM naming a commit it has`,
    );
  }
  const title = await git(["log", "-1", "--format=%h %s", commit]);
  const dir = join(parent, "previous");
  await mkdir(dir, { recursive: true });
  await extract(commit, dir);
  const sameLock = await run("git", ["-C", repoRoot, "diff", "--quiet", commit, "--", "package-lock.json"]).then(
    () => true,
    () => false,
  );
  if (sameLock) await symlink(join(repoRoot, "node_modules"), join(dir, "node_modules"), "dir");
  else await run("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: dir, maxBuffer: 16 << 20 });
  const flotillaBin = join(dir, "bin", "flotilla.ts");
  return { commit, title, dir, flotillaBin, flags: parseUsageFlags(await usageOf(flotillaBin)) };
}

/** `git archive <commit> | tar -x -C dir`. */
function extract(commit: string, dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const archive = spawn("git", ["-C", repoRoot, "archive", "--format=tar", commit], { stdio: ["ignore", "pipe", "pipe"] });
    const tar = spawn("tar", ["-x", "-C", dir], { stdio: ["pipe", "ignore", "pipe"] });
    archive.stdout.pipe(tar.stdin);
    let err = "";
    archive.stderr.on("data", (d: Buffer) => (err += d.toString()));
    tar.stderr.on("data", (d: Buffer) => (err += d.toString()));
    let pending = 2;
    const done = (what: string) => (code: number | null) => {
      if (code !== 0) return reject(new Error(`${what} of ${commit} failed (${code}): ${err.trim()}`));
      if (--pending === 0) resolve();
    };
    archive.on("close", done("git archive"));
    tar.on("close", done("tar -x"));
    archive.on("error", reject);
    tar.on("error", reject);
  });
}

/** The usage text a flotilla binary prints (it prints it, and exits 2, for an unknown flag). */
async function usageOf(bin: string): Promise<string> {
  const r = await run(process.execPath, [bin, "--help"]).catch((e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? "", stderr: e.stderr ?? "" }));
  return `${r.stdout}\n${r.stderr}`;
}

/**
 * The flags of each command in a usage text: a line `flotilla <command>: …` starts a command,
 * each `  --<flag> …` under it is one of its flags. Pure.
 */
export function parseUsageFlags(usage: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  let current: Set<string> | undefined;
  for (const line of usage.split("\n")) {
    const command = /^flotilla ([a-z][a-z -]*[a-z]):/.exec(line);
    if (command) {
      current = new Set();
      out.set(command[1] as string, current);
      continue;
    }
    const flag = /^ {2}--([a-z0-9][a-z0-9-]*)\b/.exec(line);
    if (flag && current) current.add(flag[1] as string);
  }
  return out;
}

/**
 * The arguments a command of a previous version is started with: `args` less each `--flag` or
 * `--flag=value` it does not know. A flag it does not know is dropped, not passed on to fail.
 * `args[0]` and `args[1]` (the binary and the command) are kept. Pure.
 */
export function argsKnownBy(known: ReadonlySet<string> | undefined, args: readonly string[]): string[] {
  if (known === undefined) return [...args];
  return args.filter((a, i) => {
    if (i < 2 || !a.startsWith("--")) return true;
    return known.has(a.slice(2).split("=")[0] as string);
  });
}

/**
 * The arguments that start `args` (a flotilla binary, its command, its flags) on another version:
 * its binary, the same command, and the flags it knows. Pure.
 */
export function argsOnVersion(version: { flotillaBin: string; flags?: Map<string, Set<string>> }, args: readonly string[]): string[] {
  const [, command = ""] = args;
  return [version.flotillaBin, ...argsKnownBy(version.flags?.get(command), args).slice(1)];
}
