// What a flotillactl command is: its usage line, summary and flags (the help and the generated
// reference read them) and its run, given an Admin API client unless it is direct.
import type { AdminClient, TemplateRef } from "../../shared/gen/flotilla/v1alpha1/admin.ts";
import { FlagError, type FlagSpec, type FlagValues } from "../../shared/flags.ts";
import type { Credentials } from "./connection.ts";
import { kindAndName, type OutputFormat } from "./format.ts";

/** What a command's run gets. */
export interface CommandContext {
  client: AdminClient;
  /** What the client connected with (the member API takes the same). */
  credentials: Credentials;
  args: string[];
  flags: FlagValues;
  /** -o; "wide" reaches a command as "table" (its flags.output still says "wide"). */
  format: OutputFormat;
  timeoutMs: number;
  warn: (s: string) => void;
  /** The program as invoked: `flotillactl`, or `kubectl flotilla` as a kubectl plugin. */
  program: string;
}

export interface Command {
  usage: string;
  /** How many arguments that are not flags it takes: exactly this many, or from min to max. */
  positionals?: number | { min: number; max: number };
  summary: string;
  flags: FlagSpec[];
  formats: readonly (OutputFormat | "wide")[];
  /** Its output; a command that streams writes it itself and returns "". */
  run(ctx: CommandContext): Promise<string>;
  /** Writes to the control cluster or runs locally instead of calling the Admin API (no connection is made). */
  direct?: true;
}

/** The template `<kind>/<name>` and -n name, as the Admin API takes it (the control plane resolves the kind). */
export function templateRef(arg: string | undefined, flags: FlagValues): TemplateRef {
  const kn = kindAndName(arg);
  if ("error" in kn) throw new FlagError(kn.error);
  return { apiVersion: "", kind: kn.kind, namespace: String(flags.namespace ?? ""), name: kn.name };
}

/** Whether a command that takes `want` arguments (exactly, or a range; none when undefined) may be given `count`. */
export function positionalsFit(count: number, want: Command["positionals"]): boolean {
  if (want === undefined || typeof want === "number") return count === (want ?? 0);
  return count >= want.min && count <= want.max;
}
