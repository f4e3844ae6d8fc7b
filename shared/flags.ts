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
}

export type FlagValues = Record<string, string | number | boolean | undefined>;

/** A flag error: the process exits 2 with this message and the help text. */
export class FlagError extends Error {
  override name = "FlagError";
}

/** Parses argv against specs: --name=value, --name value, --bool / --bool=false; flags beat env beat defaults. */
export function parseFlags(specs: FlagSpec[], argv: string[], env: NodeJS.ProcessEnv): FlagValues {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const raw = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith("--")) throw new FlagError(`unexpected argument ${JSON.stringify(arg)}`);
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const spec = byName.get(name);
    if (spec === undefined) throw new FlagError(`unknown flag --${name}`);
    let value: string | undefined = eq < 0 ? undefined : arg.slice(eq + 1);
    if (value === undefined) {
      if (spec.type === "bool") value = "true";
      else {
        value = argv[++i];
        if (value === undefined) throw new FlagError(`--${name} needs a value`);
      }
    }
    raw.set(name, value);
  }
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

/** The help text of a command's flags. */
export function flagHelp(specs: FlagSpec[]): string {
  return specs
    .map((s) => {
      const extra = [s.default !== undefined ? `default ${s.default === "" ? '""' : s.default}` : "", s.env ? `env ${s.env}` : "", s.required ? "required" : ""].filter(Boolean).join("; ");
      return `  --${s.name} ${s.type === "bool" ? "" : `<${s.type}>`}\n      ${s.help}${extra ? ` (${extra})` : ""}`;
    })
    .join("\n");
}
