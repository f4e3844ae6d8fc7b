// The flags flotillactl's commands share (besides the connection flags).
import type { FlagSpec } from "../../shared/flags.ts";

export const namespaceFlag: FlagSpec = { name: "namespace", short: "n", type: "string", default: "default", help: "the template's namespace (ignored for cluster-scoped kinds)" };
export const allNamespacesFlag: FlagSpec = { name: "all-namespaces", short: "A", type: "bool", help: "every namespace" };
export const clusterFlag: FlagSpec = { name: "cluster", type: "string", help: "the member cluster" };

export const ttlFlag: FlagSpec = { name: "ttl", type: "duration", default: "24h", help: "how long the token is good for (at most 168h: 7 days)" };
export const usesFlag: FlagSpec = { name: "uses", type: "int", default: "0", help: "how many members may register with it (0: any number until it expires)" };
export const descriptionFlag: FlagSpec = { name: "description", type: "string", default: "", help: "what it is for" };
export const fileFlag: FlagSpec = { name: "filename", short: "f", type: "string", required: true, help: "the objects: YAML documents or JSON, a kind: List too (- reads stdin)" };
export const planNamespaceFlag: FlagSpec = { name: "namespace", short: "n", type: "string", help: "the namespace of objects that name none (default: default); must agree with those that do" };
export const diffFlag: FlagSpec = { name: "diff", type: "bool", help: "also print each changing Work now against after, as a unified diff" };
export const kubeconfigFlag: FlagSpec = { name: "kubeconfig", type: "string", env: "FLOTILLA_CONTROL_KUBECONFIG", help: "kubeconfig of the control cluster (default: <state-dir>/control.kubeconfig, the local fleet's)" };
export const forceFlag: FlagSpec = { name: "force", type: "bool", help: "remove the Cluster now and release the bindings waiting on it" };

/** -o: table, json or yaml (a command may offer fewer); `def` is its default. */
export function outputFlag(def: string): FlagSpec {
  return { name: "output", short: "o", type: "string", default: def, help: "output format: table, json or yaml" };
}

/** Every flag any command takes, for the README check. */
export const commandFlags: FlagSpec[] = [namespaceFlag, allNamespacesFlag, clusterFlag, outputFlag("table"), ttlFlag, usesFlag, descriptionFlag, forceFlag, fileFlag, diffFlag, kubeconfigFlag];
