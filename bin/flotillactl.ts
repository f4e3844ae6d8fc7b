// flotillactl: reads the fleet through the control plane's Admin API (mTLS, admin certificate).
// Exit codes: 0 success, 1 the call failed (the server's message is printed), 2 bad usage.
import { type ServiceError, status as GrpcStatus } from "@grpc/grpc-js";

// grpc-js sends the host of --server as the TLS server name unless --server-name is given; Node
// flags an IP address there as deprecated, and a CLI's stderr is for the user.
process.noDeprecation = true;
import { AGENT_ON_OTHER_REPLICA } from "../shared/admin-errors.ts";
import { FlagError, parseArgs } from "../shared/flags.ts";
import { runCommandLine } from "./command-line.ts";
import { type Command, positionalsFit } from "./ctl/command.ts";
import { commandGroups, groupedCommands } from "./ctl/command-groups.ts";
import { connect, connectionFlags } from "./ctl/connection.ts";
import { outputFormat } from "./ctl/format.ts";
import { asksForHelp, commandHelp, overview, programName } from "./ctl/help.ts";
import { resolveGetName } from "./ctl/short-names.ts";

/** The subcommands, exported for the generated reference (docs/reference/flags.md). */
export const commands: Record<string, Command> = groupedCommands;

/** `flotillactl`, or `kubectl flotilla` when kubectl runs it as its plugin (bin/run-ts.js says which file was started). */
const PROGRAM = programName(process.env.FLOTILLA_INVOKED_AS || process.argv[1]);

async function runCommand(command: Command, rest: string[]): Promise<string> {
  if (asksForHelp(rest)) return commandHelp(PROGRAM, command, connectionFlags);
  const { flags, positionals } = parseArgs([...command.flags, ...connectionFlags], rest, process.env);
  if (!positionalsFit(positionals.length, command.positionals)) throw new FlagError(`usage: ${PROGRAM} ${command.usage}`);
  const chosen = outputFormat(flags.output === undefined ? (command.formats[0] as string) : String(flags.output), command.formats);
  if (typeof chosen !== "string") throw new FlagError(chosen.error);
  const format = chosen === "wide" ? "table" : chosen;
  const context = { args: positionals, flags, format, timeoutMs: Number(flags.timeout), warn: (s: string) => console.error(s), program: PROGRAM };
  if (command.direct) return command.run({ ...context, client: undefined as never, credentials: undefined as never });
  const connection = await connect(flags);
  const { server } = connection;
  let client = connection.client;
  try {
    // A call that needs the agent's own replica (diff) tries other connections: behind a Service
    // of several replicas, each new connection may land on another one.
    for (let attempt = 1; ; attempt++) {
      try {
        return await command.run({ ...context, client, credentials: connection.credentials });
      } catch (err) {
        if (!(isServiceError(err) && err.code === GrpcStatus.FAILED_PRECONDITION && err.details.includes(AGENT_ON_OTHER_REPLICA) && attempt < REPLICA_TRIES)) throw err;
        client.close();
        client = connection.another();
      }
    }
  } catch (err) {
    if (isServiceError(err)) {
      const where = err.code === GrpcStatus.UNAVAILABLE || err.code === GrpcStatus.DEADLINE_EXCEEDED ? ` (control plane at ${server})` : "";
      throw new Error(`${GrpcStatus[err.code] ?? err.code}: ${err.details || err.message}${where}`, { cause: err });
    }
    throw err;
  } finally {
    client.close();
  }
}

/** How many connections a call that needs the agent's replica tries (1 in 2^7 to miss with 2 replicas). */
const REPLICA_TRIES = 8;

function isServiceError(err: unknown): err is ServiceError {
  return typeof err === "object" && err !== null && typeof (err as ServiceError).code === "number" && "details" in err;
}

if (import.meta.main) {
  const argv = resolveGetName(process.argv.slice(2));
  // `help <command>` is `<command> --help`.
  process.argv.splice(2, Infinity, ...(argv[0] === "help" && argv.length > 1 ? [...argv.slice(1), "--help"] : argv));
  runCommandLine(PROGRAM, commands, () => overview(PROGRAM, commandGroups), runCommand, () => `run \`${PROGRAM} help\` for usage`);
}
