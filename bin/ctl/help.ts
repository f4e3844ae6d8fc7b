// flotillactl's help, as kubectl's reads: the overview lists the commands in groups, one line
// each; `<command> --help` gives one command's usage, summary and flags. Pure.
import { basename } from "node:path";
import { type FlagSpec, flagHelp } from "../../shared/flags.ts";
import type { Command } from "./command.ts";

/** A heading of the overview and the commands under it. */
export interface CommandGroup {
  title: string;
  commands: Readonly<Record<string, Command>>;
}

/** The widest a summary's line in the overview is. */
const BRIEF_WIDTH = 80;

/**
 * A summary for the overview's one line: the whole summary when it fits; else its first clause,
 * up to the first `:` or `;` outside parentheses (what follows details it); else that clause without
 * its parenthesized asides; else cut at its last comma that fits, or at a word with `…`.
 */
export function briefSummary(summary: string): string {
  if (summary.length <= BRIEF_WIDTH) return summary;
  let depth = 0;
  let end = summary.length;
  for (let i = 0; i < summary.length; i++) {
    const c = summary[i];
    if (c === "(") depth++;
    else if (c === ")") depth = Math.max(0, depth - 1);
    else if (depth === 0 && (c === ":" || c === ";") && summary[i + 1] === " ") {
      end = i;
      break;
    }
  }
  let clause = summary.slice(0, end).trim();
  if (clause.length > BRIEF_WIDTH) clause = clause.replace(/\s*\([^()]*\)/g, "");
  if (clause.length <= BRIEF_WIDTH) return clause;
  const comma = clause.lastIndexOf(", ", BRIEF_WIDTH);
  if (comma >= BRIEF_WIDTH / 2) return clause.slice(0, comma);
  const space = clause.lastIndexOf(" ", BRIEF_WIDTH - 1);
  return `${clause.slice(0, space > 0 ? space : BRIEF_WIDTH - 1)}…`;
}

/** The overview: a line saying what the program is, each group's commands with their brief summaries, where to read more. */
export function overview(program: string, groups: readonly CommandGroup[]): string {
  const names = groups.flatMap((g) => Object.keys(g.commands));
  const width = Math.max(...names.map((n) => n.length));
  return [
    `${program} reads and steers a Flotilla fleet through its control plane.`,
    "",
    ...groups.flatMap((g) => [`${g.title}:`, ...Object.entries(g.commands).map(([name, c]) => `  ${name.padEnd(width)}   ${briefSummary(c.summary)}`), ""]),
    `Usage: ${program} <command> [flags]`,
    "Exit codes: 0 success, 1 the call failed, 2 bad usage.",
    `Use \`${program} <command> --help\` for a command's flags.`,
  ].join("\n");
}

/** One command's help: its usage, its whole summary, its flags and the connection flags. */
export function commandHelp(program: string, command: Command, connectionFlags: readonly FlagSpec[]): string {
  return [
    `Usage: ${program} ${command.usage}`,
    "",
    `${command.summary.charAt(0).toUpperCase()}${command.summary.slice(1)}.`,
    "",
    ...(command.flags.length === 0 ? [] : ["Flags:", flagHelp(command.flags), ""]),
    command.direct ? "Connection flags (it makes no Admin API connection: --state-dir and --timeout apply):" : "Connection flags:",
    flagHelp([...connectionFlags]),
    "",
    "Exit codes: 0 success, 1 the call failed, 2 bad usage.",
  ].join("\n");
}

/** Whether argv asks for a command's help: `--help` or `-h` before any `--`. */
export function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

/**
 * The program's name as it was started, for messages: `kubectl flotilla` when kubectl runs it as
 * its plugin `kubectl-flotilla` (kubectl turns `kubectl flotilla …` into that file), else `flotillactl`.
 */
export function programName(invokedAs: string | undefined): string {
  const file = basename(invokedAs ?? "").replace(/\.(ts|js)$/, "");
  return file.startsWith("kubectl-") ? `kubectl ${file.slice("kubectl-".length).replaceAll("_", "-")}` : "flotillactl";
}
