// The `flotilla` command: one binary for the control plane, the agent, and certificate set-up.
import { flagHelp, parseFlags } from "../shared/flags.ts";
import { commands } from "./flotilla-commands.ts";
import { runCommandLine } from "./command-line.ts";

function usage(): string {
  return [
    "usage: flotilla <command> [flags]",
    "",
    ...Object.entries(commands).flatMap(([name, c]) => [`flotilla ${name}: ${c.summary}`, flagHelp(c.flags), ""]),
    "Exit codes: 0 success, 1 failure, 2 bad usage. LOG_LEVEL sets the log level (default info).",
  ].join("\n");
}

runCommandLine("flotilla", commands, usage, (command, rest) => command.run(parseFlags(command.flags, rest, process.env)));
