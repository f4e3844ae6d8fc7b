// The agent's entry point in the production bundle (scripts/bundle.ts): `flotilla agent` without
// the control plane's and the certificate commands' code.
import { agentFlags, runAgent } from "../agent/main.ts";
import { runCommandLine } from "./command-line.ts";
import { flagHelp, parseFlags } from "../shared/flags.ts";

const commands = { agent: { summary: "run the agent of one member cluster", flags: agentFlags, run: runAgent } };
runCommandLine("flotilla", commands, () => `usage: flotilla agent [flags]\n${flagHelp(agentFlags)}`, (command, rest) => command.run(parseFlags(command.flags, rest, process.env)));
