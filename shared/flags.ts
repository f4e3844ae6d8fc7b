// Command-line flags for Flotilla's processes: one declarative table per command gives parsing,
// environment fallbacks, validation and the help text.
import { parseDuration } from "./duration.ts";

export type FlagType = "string" | "duration" | "bool" | "int";

export interface FlagSpec {
  name: string;
  type: FlagType;
  help: string;
  default?: string;
  /** An environment variable read when the flag is not given. */
  env?: string;
  required?: boolean;
  /** A one-letter alias, given as -x (e.g. -n for --namespace). */
  short?: string;
}

export type FlagValues = Record<string, string | number | boolean | undefined>;

/** A flag error: the process exits 2 with this message and the help text. */
export class FlagError extends Error {
  override name = "FlagError";
}

/** Parses argv against specs: --name=value, --name value, --bool / --bool=false; flags beat env beat defaults. */
export function parseFlags(specs: FlagSpec[], argv: string[], env: NodeJS.ProcessEnv): FlagValues {
  const { raw, positionals } = scan(specs, argv);
  if (positionals.length > 0) throw new FlagError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  return resolveValues(specs, raw, env);
}

/** As parseFlags, but also takes -x short aliases and returns the arguments that are not flags (in order; `--` ends the flags). */
export function parseArgs(specs: FlagSpec[], argv: string[], env: NodeJS.ProcessEnv): { flags: FlagValues; positionals: string[] } {
  const { raw, positionals } = scan(specs, argv);
  return { flags: resolveValues(specs, raw, env), positionals };
}

function scan(specs: FlagSpec[], argv: string[]): { raw: Map<string, string>; positionals: string[] } {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const byShort = new Map(specs.filter((s) => s.short !== undefined).map((s) => [s.short as string, s]));
  const raw = new Map<string, string>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const long = arg.startsWith("--");
    const eq = arg.indexOf("=");
    const name = arg.slice(long ? 2 : 1, eq < 0 ? undefined : eq);
    const spec = long ? byName.get(name) : byShort.get(name);
    if (spec === undefined) throw new FlagError(`unknown flag ${long ? "--" : "-"}${name}`);
    let value: string | undefined = eq < 0 ? undefined : arg.slice(eq + 1);
    if (value === undefined) {
      if (spec.type === "bool") value = "true";
      else {
        value = argv[++i];
        if (value === undefined) throw new FlagError(`--${spec.name} needs a value`);
      }
    }
    raw.set(spec.name, value);
  }
  return { raw, positionals };
}

function resolveValues(specs: FlagSpec[], raw: Map<string, string>, env: NodeJS.ProcessEnv): FlagValues {
  const out: FlagValues = {};
  for (const spec of specs) {
    const fromEnv = spec.env !== undefined && env[spec.env] !== undefined && env[spec.env] !== "" ? env[spec.env] : undefined;
    const value = raw.get(spec.name) ?? fromEnv ?? spec.default;
    const source = raw.has(spec.name) ? `--${spec.name}` : fromEnv !== undefined ? `$${spec.env}` : `--${spec.name}`;
    if (value === undefined) {
      if (spec.required) throw new FlagError(`--${spec.name} is required${spec.env ? ` (or set $${spec.env})` : ""}`);
      out[spec.name] = undefined;
      continue;
    }
    out[spec.name] = convert(spec, value, source);
  }
  return out;
}

function convert(spec: FlagSpec, value: string, source: string): string | number | boolean {
  switch (spec.type) {
    case "string":
      return value;
    case "bool":
      if (value === "true") return true;
      if (value === "false") return false;
      throw new FlagError(`${source} must be true or false, not ${JSON.stringify(value)}`);
    case "int": {
      if (!/^-?\d+$/.test(value)) throw new FlagError(`${source} must be a whole number, not ${JSON.stringify(value)}`);
      return Number(value);
    }
    case "duration":
      try {
        return parseDuration(value);
      } catch {
        throw new FlagError(`${source} must be a duration such as 500ms, 30s or 1m, not ${JSON.stringify(value)}`);
      }
  }
}

/** A number flag's value, refused unless above 0 (an interval of 0 would spin). */
export function positiveFlag(flags: FlagValues, name: string): number {
  const v = flags[name] as number;
  if (!(v > 0)) throw new FlagError(`--${name} must be above 0 (got ${v})`);
  return v;
}

/** The help text of a command's flags. */
export function flagHelp(specs: FlagSpec[]): string {
  return specs
    .map((s) => {
      const extra = [s.default !== undefined ? `default ${s.default === "" ? '""' : s.default}` : "", s.env ? `env ${s.env}` : "", s.required ? "required" : ""].filter(Boolean).join("; ");
      return `  ${s.short ? `-${s.short}, ` : ""}--${s.name} ${s.type === "bool" ? "" : `<${s.type}>`}\n      ${s.help}${extra ? ` (${extra})` : ""}`;
    })
    .join("\n");
}
