// The flags flotillactl's commands share (besides the connection flags).
import type { FlagSpec } from "../../shared/flags.ts";

export const namespaceFlag: FlagSpec = { name: "namespace", short: "n", type: "string", default: "default", help: "the template's namespace (ignored for cluster-scoped kinds)" };
export const allNamespacesFlag: FlagSpec = { name: "all-namespaces", short: "A", type: "bool", help: "every namespace" };
export const clusterScopedFlag: FlagSpec = { name: "cluster-scoped", type: "bool", help: "only the cluster-scoped ones (ClusterResourceBindings: `get crb`)" };
/** kubectl's paging of a list (issue 25): describe's clusters. */
export const limitFlag: FlagSpec = { name: "limit", type: "int", default: "0", help: "at most this many clusters (0: every one); the rest with --continue" };
export const continueFlag: FlagSpec = { name: "continue", type: "string", default: "", help: "the token the previous page printed: the clusters after it" };
export const clusterFlag: FlagSpec = { name: "cluster", type: "string", help: "the member cluster" };

export const ttlFlag: FlagSpec = { name: "ttl", type: "duration", default: "24h", help: "how long the token is good for (at most 168h: 7 days)" };
export const usesFlag: FlagSpec = { name: "uses", type: "int", default: "0", help: "how many members may register with it (0: any number until it expires)" };
export const descriptionFlag: FlagSpec = { name: "description", type: "string", default: "", help: "what it is for" };
export const fileFlag: FlagSpec = { name: "filename", short: "f", type: "string", required: true, help: "the objects: YAML documents or JSON, a kind: List too (- reads stdin)" };
export const planNamespaceFlag: FlagSpec = { name: "namespace", short: "n", type: "string", help: "the namespace of objects that name none (default: default); must agree with those that do" };
export const diffFlag: FlagSpec = { name: "diff", type: "bool", help: "also print each changing Work now against after, as a unified diff" };
export const kubeconfigFlag: FlagSpec = { name: "kubeconfig", type: "string", env: "FLOTILLA_CONTROL_KUBECONFIG", help: "kubeconfig of the control cluster (default: <state-dir>/control.kubeconfig, the local fleet's)" };
export const groupFlag: FlagSpec = { name: "group", type: "string", help: "approve this group's gates (BeforeGroup and AfterGroup) ahead of time (default: the approval the rollout waits for)" };
export const forceFlag: FlagSpec = { name: "force", type: "bool", help: "remove the Cluster now and release the bindings waiting on it" };

/** promote (karmadactl promote's names). */
export const clusterKubeconfigFlag: FlagSpec = { name: "cluster-kubeconfig", type: "string", required: true, help: "kubeconfig of the member cluster the object runs in (flotillactl reads it there)" };
export const clusterContextFlag: FlagSpec = { name: "cluster-context", type: "string", help: "the context of --cluster-kubeconfig to use (default: its current context)" };
export const autoCreatePolicyFlag: FlagSpec = { name: "auto-create-policy", type: "bool", default: "true", help: "also create the policy that places the object on --cluster (a PropagationPolicy, or a ClusterPropagationPolicy for a cluster-scoped kind); false: the template only" };
export const policyNameFlag: FlagSpec = { name: "policy-name", type: "string", default: "", help: "the created policy's name (default: the object's name and a digest of its kind and namespace)" };
export const dryRunFlag: FlagSpec = { name: "dry-run", type: "bool", help: "check everything and say what would be created, writing nothing" };

export const customizationFileFlag: FlagSpec = { name: "filename", short: "f", type: "string", required: true, help: "the ResourceInterpreterCustomizations: a file of YAML documents or JSON, a directory of them, or - for stdin" };
export const recursiveFlag: FlagSpec = { name: "recursive", short: "R", type: "bool", help: "with a directory for -f, also read its subdirectories" };
export const checkFlag: FlagSpec = { name: "check", type: "bool", help: "check each customization as applying it would (scripts compile and define their function, no two give one operation) instead of running one" };
export const operationFlag: FlagSpec = { name: "operation", type: "string", help: "the operation to run, in any case: Retain, InterpretReplica, InterpretComponent, ReviseReplica, InterpretStatus, AggregateStatus, InterpretHealth or InterpretDependency" };
export const desiredFileFlag: FlagSpec = { name: "desired-file", type: "string", help: "the object given as desiredObj (Retain's desired; any other operation's object)" };
export const observedFileFlag: FlagSpec = { name: "observed-file", type: "string", help: "the object given as observedObj (Retain's observed; any other operation's object)" };
export const statusFileFlag: FlagSpec = { name: "status-file", type: "string", help: "AggregateStatus's statusItems: aggregated status items (clusterName, status, applied, appliedMessage, health), one per YAML document or a list; without it the script gets nil" };
export const desiredReplicaFlag: FlagSpec = { name: "desired-replica", type: "int", default: "0", help: "ReviseReplica's desiredReplica" };

/** The member commands (issue 41): get, logs, events through the member API. */
export const clustersFlag: FlagSpec = { name: "clusters", short: "C", type: "string", default: "all", help: "the member clusters to read, comma-separated (all: every registered one)" };
export const memberNamespaceFlag: FlagSpec = { name: "namespace", short: "n", type: "string", default: "default", help: "the namespace in the members (ignored for cluster-scoped resources)" };
export const selectorFlag: FlagSpec = { name: "selector", short: "l", type: "string", default: "", help: "label selector, as kubectl's (app=web,tier!=db)" };
export const fieldSelectorFlag: FlagSpec = { name: "field-selector", type: "string", default: "", help: "field selector, as kubectl's (status.phase=Running)" };

/** logs and events: the members a workload runs in. */
export const workloadClustersFlag: FlagSpec = { name: "clusters", short: "C", type: "string", default: "", help: "the member clusters to read, comma-separated, or all (default: those the template is propagated to, from the control plane)" };
export const oneClusterFlag: FlagSpec = { name: "cluster", type: "string", default: "", help: "one member cluster to read (as --clusters with one name): a pod that is no template, `logs --cluster X pod/NAME`" };
export const containerFlag: FlagSpec = { name: "container", short: "c", type: "string", default: "", help: "only this container's log (default: every container of each pod)" };
export const followFlag: FlagSpec = { name: "follow", short: "f", type: "bool", help: "keep streaming new lines until the pods end or Ctrl-C" };
export const tailFlag: FlagSpec = { name: "tail", type: "int", default: "-1", help: "only the last N lines of each container's log (-1: all)" };
export const sinceFlag: FlagSpec = { name: "since", type: "duration", help: "only lines newer than this (5s, 2m, 3h)" };
export const timestampsFlag: FlagSpec = { name: "timestamps", type: "bool", help: "each line with its RFC 3339 time, as the kubelet records it" };
export const watchFlag: FlagSpec = { name: "watch", short: "w", type: "bool", help: "after the events so far, print each new one as it comes, until Ctrl-C" };
export const maxLogRequestsFlag: FlagSpec = { name: "max-log-requests", type: "int", default: "10", help: "with -f, the most log streams followed in one member (the member API answers 429 past its own limit per member)" };

/** -o: table, json or yaml (a command may offer fewer); `def` is its default. */
export function outputFlag(def: string): FlagSpec {
  return { name: "output", short: "o", type: "string", default: def, help: "output format: table, json or yaml" };
}

/** Every flag any command takes, for the flags reference check (test/readme.test.ts). */
export const commandFlags: FlagSpec[] = [namespaceFlag, allNamespacesFlag, clusterScopedFlag, clusterFlag, outputFlag("table"), ttlFlag, usesFlag, descriptionFlag, forceFlag, groupFlag, fileFlag, diffFlag, kubeconfigFlag, customizationFileFlag, recursiveFlag, checkFlag, operationFlag, desiredFileFlag, observedFileFlag, statusFileFlag, desiredReplicaFlag, clusterKubeconfigFlag, clusterContextFlag, autoCreatePolicyFlag, policyNameFlag, dryRunFlag, clustersFlag, memberNamespaceFlag, selectorFlag, fieldSelectorFlag, workloadClustersFlag, oneClusterFlag, containerFlag, followFlag, tailFlag, sinceFlag, timestampsFlag, maxLogRequestsFlag, watchFlag];
