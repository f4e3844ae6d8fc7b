// The `flotilla` command's subcommands, apart from bin/flotilla.ts so that the generated reference
// (scripts/gen-docs.ts) can import them without running the command.
import { runAgent, agentFlags } from "../agent/main.ts";
import { certsAdmin, certsAdminFlags, certsAgent, certsAgentFlags, certsInit, certsInitFlags, certsRevoke, certsRevokeFlags } from "../control-plane/clusters/certs.ts";
import { controlPlaneFlags, runControlPlane } from "../control-plane/main.ts";
import type { FlagSpec, FlagValues } from "../shared/flags.ts";

export interface Command {
  summary: string;
  flags: FlagSpec[];
  run(flags: FlagValues): Promise<string | void>;
}

export const commands: Record<string, Command> = {
  "control-plane": { summary: "run the control plane (controllers + agent hub)", flags: controlPlaneFlags, run: runControlPlane },
  agent: { summary: "run the agent of one member cluster", flags: agentFlags, run: runAgent },
  "certs init": { summary: "create the CA and the hub's serving certificate", flags: certsInitFlags, run: certsInit },
  "certs agent": { summary: "sign a client certificate for one member cluster", flags: certsAgentFlags, run: certsAgent },
  "certs admin": { summary: "sign an admin or viewer client certificate (for flotillactl)", flags: certsAdminFlags, run: certsAdmin },
  "certs revoke": { summary: "add an admin or viewer certificate to the admin revocation list", flags: certsRevokeFlags, run: certsRevoke },
};
