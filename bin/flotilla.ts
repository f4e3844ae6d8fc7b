// The `flotilla` command: one binary for the control plane, the agent, and certificate set-up.
import { runAgent, agentFlags } from "../agent/main.ts";
import { certsAgent, certsAgentFlags, certsInit, certsInitFlags } from "../control-plane/certs.ts";
import { controlPlaneFlags, runControlPlane } from "../control-plane/main.ts";
import { FlagError, type FlagSpec, flagHelp, parseFlags } from "../shared/flags.ts";

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
};

function usage(): string {
  return [
    "usage: flotilla <command> [flags]",
    "",
    ...Object.entries(commands).flatMap(([name, c]) => [`flotilla ${name}: ${c.summary}`, flagHelp(c.flags), ""]),
    "Exit codes: 0 success, 1 failure, 2 bad usage. LOG_LEVEL sets the log level (default info).",
  ].join("\n");
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === "help" || argv[0] === "--help" || argv[0] === "-h") {
    console.log(usage());
    return argv.length === 0 ? 2 : 0;
  }
  const two = `${argv[0]} ${argv[1] ?? ""}`;
  const [name, rest] = commands[two] ? [two, argv.slice(2)] : [argv[0] as string, argv.slice(1)];
  const command = commands[name];
  if (command === undefined) throw new FlagError(`unknown command ${JSON.stringify(argv.slice(0, 2).join(" "))}`);
  const out = await command.run(parseFlags(command.flags, rest, process.env));
  if (out) console.log(out);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof FlagError) {
      console.error(`flotilla: ${err.message}\n\n${usage()}`);
      process.exit(2);
    }
    console.error(`flotilla: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
