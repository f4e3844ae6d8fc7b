// How a benchmark runs its agents, from its command line (issue 25): `--bundle` runs them from the
// production bundle (scripts/bundle.ts, built first) instead of the TypeScript sources, and
// `--agent-node-args "FLAGS"` puts Node.js flags on their command line, e.g. --optimize-for-size,
// which NODE_OPTIONS does not take. Shared by bench:agent-rss, bench:latency and bench:propagate.
import type { ParseArgsOptionsConfig } from "node:util";
import { bundleAgent } from "../../scripts/bundle.ts";
import type { FlotillaOptions } from "../env/flotilla.ts";

export const AGENT_OPTIONS = {
  bundle: { type: "boolean", default: false },
  "agent-node-args": { type: "string", default: "" },
} as const satisfies ParseArgsOptionsConfig;

export type AgentOptions = Pick<FlotillaOptions, "agentBin" | "agentNodeArgs">;

/** The start options for the agents `values` asks for (building the bundle when it does). */
export async function agentOptions(values: { bundle?: boolean | undefined; "agent-node-args"?: string | undefined }): Promise<AgentOptions> {
  const agentNodeArgs = (values["agent-node-args"] ?? "").split(" ").filter((a) => a !== "");
  return {
    ...(values.bundle === true ? { agentBin: (await bundleAgent()).file } : {}),
    ...(agentNodeArgs.length > 0 ? { agentNodeArgs } : {}),
  };
}

/** "agents from the bundle, node --optimize-for-size", for a bench's first lines. */
export function describeAgents(o: AgentOptions): string {
  return `agents from ${o.agentBin ?? "the TypeScript sources"}${o.agentNodeArgs ? `, node ${o.agentNodeArgs.join(" ")}` : ""}`;
}
