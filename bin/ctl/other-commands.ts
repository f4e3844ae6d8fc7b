// flotillactl's "Migration" commands (from Karmada, from KubeFed) and the "Other" ones: the
// dashboard's sign-in link and the local interpreter test.
import { checkFlag, customizationFileFlag, desiredFileFlag, desiredReplicaFlag, kubeconfigFlag, observedFileFlag, operationFlag, outputFlag, recursiveFlag, statusFileFlag } from "./command-flags.ts";
import type { Command } from "./command.ts";
import { call } from "./connection.ts";
import { structured } from "./format.ts";
import { runInterpret } from "./interpret.ts";
import { applyFlag, karmadaKubeconfigFlag, runMigrateKarmada } from "./migrate-karmada.ts";
import { kubefedFileFlag, kubefedKubeconfigFlag, runMigrateKubefed } from "./migrate-kubefed.ts";

export const migrationCommands: Record<string, Command> = {
  "migrate karmada": {
    usage: "migrate karmada --karmada-kubeconfig FILE [--kubeconfig FILE] [--apply] [-o table|json|yaml]",
    summary: "moves a Karmada fleet's objects to Flotilla: its (Cluster)PropagationPolicies, (Cluster)OverridePolicies, ResourceInterpreterCustomizations and the templates they propagate, converted (Karmada's metadata dropped, templates marked for adoption) and listed with what could not be carried over and why; prints the plan, --apply writes it into the control cluster; deletes nothing; problems do not change the exit code",
    flags: [karmadaKubeconfigFlag, kubeconfigFlag, applyFlag, outputFlag("table")],
    formats: ["table", "json", "yaml"],
    direct: true,
    run: ({ flags, format, timeoutMs, warn }) => runMigrateKarmada(flags, format, timeoutMs, warn),
  },
  "migrate kubefed": {
    usage: "migrate kubefed (-f FILE|DIR | --kubefed-kubeconfig FILE) [--kubeconfig FILE] [--apply] [-o table|json|yaml]",
    summary: "moves a KubeFed (or Federation v1) fleet's objects to Flotilla with KubeFed's semantics kept: each Federated object as its plain object (marked for adoption of what KubeFed applied), a (Cluster)PropagationPolicy with its placement (a FederatedNamespace's bounding what is in it, a ReplicaSchedulingPreference's replicas) and a (Cluster)OverridePolicy with its overrides; DNS records in Flotilla's group; Federation v1's placement annotations; each listed with what could not be carried over and why; prints the plan, --apply writes it into the control cluster; deletes nothing; problems do not change the exit code",
    flags: [kubefedFileFlag, kubefedKubeconfigFlag, kubeconfigFlag, applyFlag, outputFlag("table")],
    formats: ["table", "json", "yaml"],
    direct: true,
    run: ({ flags, format, timeoutMs, warn }) => runMigrateKubefed(flags, format, timeoutMs, warn),
  },
};

export const otherCommands: Record<string, Command> = {
  dashboard: {
    usage: "dashboard [-o table|json]",
    summary: "a one-time link (two minutes) that signs a browser in to the control plane's web dashboard as you, with your certificate's role; the dashboard only reads",
    flags: [outputFlag("table")],
    formats: ["table", "json"],
    async run({ client, format, timeoutMs }) {
      const res = await call(client, client.createDashboardLogin, {}, timeoutMs);
      return format === "table" ? `${res.url}\n(open it before ${res.expiresAt}; it works once)` : structured(res, format);
    },
  },
  interpret: {
    usage: "interpret -f FILE (--check | --operation OP [--desired-file F] [--observed-file F] [--status-file F] [--desired-replica N]) [-o yaml|json]",
    summary: "tests ResourceInterpreterCustomizations locally, as karmadactl interpret: --check checks their scripts; --operation runs one on the given objects and prints its results (retained, replica and requires, revised, status, aggregatedStatus, healthy, dependencies, components)",
    flags: [customizationFileFlag, recursiveFlag, checkFlag, operationFlag, desiredFileFlag, observedFileFlag, statusFileFlag, desiredReplicaFlag, outputFlag("yaml")],
    formats: ["yaml", "json"],
    direct: true,
    run: ({ flags, format }) => runInterpret(flags, format === "json" ? "json" : "yaml"),
  },
};
