// flotillactl's "Members (through the control plane)" commands (issue 41): each member's
// Kubernetes API, reached through the control plane's member API as the caller.
import { open } from "node:fs/promises";
import type { FlagSpec } from "../../shared/flags.ts";
import { stringify } from "yaml";
import { clusterFlag } from "./command-flags.ts";
import type { Command } from "./command.ts";
import { call } from "./connection.ts";
import { memberEndpoint } from "./member-endpoints.ts";
import { memberKubeconfig } from "./member-kubeconfig.ts";

const outputFileFlag: FlagSpec = { name: "output-file", type: "string", help: "write the kubeconfig to this file (mode 0600: it holds your key) instead of stdout" };

export const memberCommands: Record<string, Command> = {
  kubeconfig: {
    usage: "kubeconfig --cluster X [--output-file PATH]",
    summary:
      "a kubeconfig that reaches member X's Kubernetes API through the control plane, as you (your admin or viewer certificate; the member's RBAC decides): `kubectl --kubeconfig <(flotillactl kubeconfig --cluster X) get pods -A`",
    flags: [{ ...clusterFlag, required: true }, outputFileFlag],
    formats: ["table"],
    async run({ client, credentials, flags, timeoutMs, warn }) {
      const cluster = String(flags.cluster);
      const list = await call(client, client.listClusters, {}, timeoutMs);
      const endpoint = memberEndpoint(list, cluster);
      if ("error" in endpoint) throw new Error(endpoint.error);
      const pem = (b: Buffer) => b.toString("utf8");
      const config = memberKubeconfig({ cluster, server: endpoint.server, caPem: pem(credentials.ca), serverName: credentials.serverName, certPem: pem(credentials.cert), keyPem: pem(credentials.key) });
      const text = stringify(config);
      const file = typeof flags["output-file"] === "string" && flags["output-file"] !== "" ? flags["output-file"] : undefined;
      if (file === undefined) return text.trimEnd();
      // Made 0600 before the key is written, also when the file was there already.
      const handle = await open(file, "w", 0o600);
      try {
        await handle.chmod(0o600);
        await handle.writeFile(text);
      } finally {
        await handle.close();
      }
      warn(`# wrote ${file}: context flotilla-${cluster}, server ${endpoint.server}`);
      return "";
    },
  },
};
