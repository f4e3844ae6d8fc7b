// flotillactl's "Members (through the control plane)" commands (issue 41): each member's
// Kubernetes API, reached through the control plane's member API as the caller.
import { open } from "node:fs/promises";
import type { FlagSpec } from "../../shared/flags.ts";
import { stringify } from "yaml";
import {
  allNamespacesFlag,
  clusterFlag,
  clustersFlag,
  containerFlag,
  fieldSelectorFlag,
  followFlag,
  maxLogRequestsFlag,
  memberNamespaceFlag,
  oneClusterFlag,
  outputFlag,
  selectorFlag,
  sinceFlag,
  tailFlag,
  timestampsFlag,
  watchFlag,
  workloadClustersFlag,
} from "./command-flags.ts";
import type { Command } from "./command.ts";
import { call } from "./connection.ts";
import { memberEndpoint } from "./member-endpoints.ts";
import { runMemberGet } from "./member-get.ts";
import { memberKubeconfig } from "./member-kubeconfig.ts";
import { runMemberEvents } from "./member-events.ts";
import { runMemberLogs } from "./member-logs.ts";

const outputFileFlag: FlagSpec = { name: "output-file", type: "string", help: "write the kubeconfig to this file (mode 0600: it holds your key) instead of stdout" };

export const memberCommands: Record<string, Command> = {
  get: {
    usage: "get <resource> [name] [--clusters a,b|all] [-A | -n ns] [-l selector] [--field-selector S] [-o table|wide|json|yaml]",
    positionals: { min: 1, max: 2 },
    summary:
      "any resource of the members as one table with a CLUSTER column, as karmadactl get: pods, deploy, a CRD's (as kubectl names them, resolved by each member's discovery), read through the control plane as you; Flotilla's own kinds (clusters, works, bindings, pp, cpp, op, cop) are the fleet's commands above; a member that fails is a line on stderr, and the exit code is 1 only when every one failed; -o json|yaml gives a List whose objects carry the annotation flotilla.dev/cluster",
    flags: [clustersFlag, memberNamespaceFlag, allNamespacesFlag, selectorFlag, fieldSelectorFlag, { ...outputFlag("table"), help: "output format: table, wide (also the columns kubectl shows with -o wide), json or yaml" }],
    formats: ["table", "wide", "json", "yaml"],
    run: runMemberGet,
  },
  logs: {
    usage: "logs <kind>/<name> [-n ns] [--clusters a,b|all | --cluster X] [-c container] [-f] [--tail N] [--since 5m] [--timestamps]",
    positionals: 1,
    summary:
      "the logs of a workload's pods in every member it runs in (the clusters the control plane propagated the template to), or of one pod (logs --cluster X pod/NAME): the workload is read in each member, its spec.selector lists its pods, and every container's log is read through the control plane as you, each line prefixed [<cluster> <pod>/<container>]; -f follows them all at once",
    flags: [memberNamespaceFlag, workloadClustersFlag, oneClusterFlag, containerFlag, followFlag, tailFlag, sinceFlag, timestampsFlag, maxLogRequestsFlag],
    formats: ["table"],
    run: runMemberLogs,
  },
  events: {
    usage: "events <kind>/<name> [-n ns] [--clusters a,b|all | --cluster X] [-w] [-o table|json|yaml]",
    positionals: 1,
    summary:
      "the Events about a workload in every member it runs in (the clusters the control plane propagated the template to): about it, the pods its spec.selector selects and their owners (a Deployment's ReplicaSets), read through the control plane as you and merged oldest first with a CLUSTER column; -w then prints each new one as it comes",
    flags: [memberNamespaceFlag, workloadClustersFlag, oneClusterFlag, watchFlag, outputFlag("table")],
    formats: ["table", "json", "yaml"],
    run: runMemberEvents,
  },
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
