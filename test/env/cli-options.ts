import { join } from "node:path";

/** A mistake in how the command was called: exit code 2 and the usage text. */
export class UsageError extends Error {
  override name = "UsageError";
}

export interface UpOptions {
  members: number;
  stateDir: string;
}

/** Most members a local fleet may have: each costs about 4 processes and a few hundred MB. */
export const MAX_MEMBERS = 20;

export interface RestartOptions {
  process: string;
  stateDir: string;
}

/** Parses `restart|stop <process> [--state-dir DIR]` (the state directory as `up` finds it). */
export function parseRestartOptions(args: string[], env: NodeJS.ProcessEnv, cwd: string, command: "restart" | "stop" = "restart"): RestartOptions {
  const names: string[] = [];
  let stateDir = env.FLOTILLA_STATE_DIR || join(cwd, ".flotilla");
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith("--")) {
      names.push(arg);
      continue;
    }
    const inline = arg.startsWith("--state-dir=") ? arg.slice("--state-dir=".length) : undefined;
    if (arg !== "--state-dir" && inline === undefined) throw new UsageError(`unknown flag ${JSON.stringify(arg)}`);
    const v = inline ?? args[++i];
    if (v === undefined || v === "") throw new UsageError("--state-dir needs a value");
    stateDir = v;
  }
  if (names.length !== 1) throw new UsageError(`${command} takes one process name (the pid files in <state>/pids/ name them), got ${names.length}`);
  return { process: names[0] as string, stateDir };
}

/** Parses the flags of `up` (flags beat environment variables beat defaults). */
export function parseUpOptions(args: string[], env: NodeJS.ProcessEnv, cwd: string): UpOptions {
  let members = env.FLOTILLA_MEMBERS;
  let membersSource = "FLOTILLA_MEMBERS";
  let stateDir = env.FLOTILLA_STATE_DIR || join(cwd, ".flotilla");
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const [flag, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const value = () => {
      const v = inline ?? args[++i];
      if (v === undefined || v === "") throw new UsageError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case "--members":
        members = value();
        membersSource = "--members";
        break;
      case "--state-dir":
        stateDir = value();
        break;
      default:
        throw new UsageError(`unknown flag ${JSON.stringify(arg)}`);
    }
  }
  return { members: parseMembers(members, membersSource), stateDir };
}

function parseMembers(raw: string | undefined, source: string): number {
  if (raw === undefined || raw === "") return 2;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isInteger(n) || n < 1 || n > MAX_MEMBERS) {
    throw new UsageError(`${source} must be a whole number from 1 to ${MAX_MEMBERS}, not ${JSON.stringify(raw)}`);
  }
  return n;
}
