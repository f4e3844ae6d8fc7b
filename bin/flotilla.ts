// The `flotilla` command: one binary for the control plane, the agent, and certificate set-up.
import { runAgent, agentFlags } from "../agent/main.ts";
import { certsAdmin, certsAdminFlags, certsAgent, certsAgentFlags, certsInit, certsInitFlags, certsRevoke, certsRevokeFlags } from "../control-plane/clusters/certs.ts";
import { controlPlaneFlags, runControlPlane } from "../control-plane/main.ts";
import { type FlagSpec, flagHelp, parseFlags } from "../shared/flags.ts";
import { runCommandLine } from "./command-line.ts";

interface Command {
  summary: string;
  flags: FlagSpec[];
  run(flags: ReturnType<typeof parseFlags>): Promise<string | void>;
}

const commands: Record<string, Command> = {
  "control-plane": { summary: "run the control plane (controllers + agent hub)", flags: controlPlaneFlags, run: runControlPlane },
  agent: { summary: "run the agent of one member cluster", flags: agentFlags, run: runAgent },
  "certs init": { summary: "create the CA and the hub's serving certificate", flags: certsInitFlags, run: certsInit },
  "certs agent": { summary: "sign a client certificate for one member cluster", flags: certsAgentFlags, run: certsAgent },
  "certs admin": { summary: "sign an admin or viewer client certificate (for flotillactl)", flags: certsAdminFlags, run: certsAdmin },
  "certs revoke": { summary: "add an admin or viewer certificate to the admin revocation list", flags: certsRevokeFlags, run: certsRevoke },
};

function usage(): string {
  return [
    "usage: flotilla <command> [flags]",
    "",
    ...Object.entries(commands).flatMap(([name, c]) => [`flotilla ${name}: ${c.summary}`, flagHelp(c.flags), ""]),
    "Exit codes: 0 success, 1 failure, 2 bad usage. LOG_LEVEL sets the log level (default info).",
  ].join("\n");
}

runCommandLine("flotilla", commands, usage, (command, rest) => command.run(parseFlags(command.flags, rest, process.env)));
