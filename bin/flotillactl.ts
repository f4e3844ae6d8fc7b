// flotillactl: reads the fleet through the control plane's Admin API (mTLS, admin certificate).
// Exit codes: 0 success, 1 the call failed (the server's message is printed), 2 bad usage.
import { type ServiceError, status as GrpcStatus } from "@grpc/grpc-js";

// grpc-js sends the host of --server as the TLS server name unless --server-name is given; Node
// flags an IP address there as deprecated, and a CLI's stderr is for the user.
process.noDeprecation = true;
import type { AdminClient, ClusterInfo, PlannedWork, TemplateRef } from "../shared/gen/flotilla/v1alpha1/admin.ts";
import { Health } from "../shared/gen/flotilla/v1alpha1/agent.ts";
import { AGENT_ON_OTHER_REPLICA } from "../shared/admin-errors.ts";
import { FlagError, type FlagSpec, type FlagValues, flagHelp, parseArgs } from "../shared/flags.ts";
import { runCommandLine } from "./command-line.ts";
import { acceptCluster } from "./ctl/accept.ts";
import { listPolicies, POLICY_PLURALS } from "./ctl/policies.ts";
import { GET_NAMES, resolveGetName, selectorsCell } from "./ctl/short-names.ts";
import { decideHeldDeletions, listHeldDeletions } from "./ctl/deletions.ts";
import {
  allNamespacesFlag,
  autoCreatePolicyFlag,
  checkFlag,
  clusterScopedFlag,
  clusterContextFlag,
  clusterKubeconfigFlag,
  clusterFlag,
  customizationFileFlag,
  descriptionFlag,
  desiredFileFlag,
  desiredReplicaFlag,
  diffFlag,
  dryRunFlag,
  fileFlag,
  forceFlag,
  groupFlag,
  kubeconfigFlag,
  limitFlag,
  continueFlag,
  namespaceFlag,
  observedFileFlag,
  operationFlag,
  outputFlag,
  planNamespaceFlag,
  policyNameFlag,
  recursiveFlag,
  statusFileFlag,
  ttlFlag,
  usesFlag,
} from "./ctl/command-flags.ts";
import { runInterpret } from "./ctl/interpret.ts";
import { runPromote } from "./ctl/promote.ts";
import { applyFlag, karmadaKubeconfigFlag, runMigrateKarmada } from "./ctl/migrate-karmada.ts";
import { kubefedFileFlag, kubefedKubeconfigFlag, runMigrateKubefed } from "./ctl/migrate-kubefed.ts";
import { call, connect, connectionFlags } from "./ctl/connection.ts";
import { unifiedDiff } from "./ctl/object-diff.ts";
import { readObjects } from "./ctl/object-files.ts";
import { planDiff, planRows, planSummary } from "./ctl/plan-view.ts";
import { rolloutChangeLine, rolloutTable } from "./ctl/rollout-view.ts";
import { age, bytes, kindAndName, type OutputFormat, outputFormat, structured, table, templateTitle } from "./ctl/format.ts";


interface Command {
  usage: string;
  /** How many arguments that are not flags it takes. */
  positionals?: number;
  summary: string;
  flags: FlagSpec[];
  formats: readonly OutputFormat[];
  run(ctx: { client: AdminClient; args: string[]; flags: FlagValues; format: OutputFormat; timeoutMs: number; warn: (s: string) => void }): Promise<string>;
  /** Writes to the control cluster instead of calling the Admin API (no connection is made). */
  direct?: true;
}

const HEALTH_WORD: Record<number, string> = { [Health.HEALTH_HEALTHY]: "Healthy", [Health.HEALTH_PROGRESSING]: "Progressing", [Health.HEALTH_UNHEALTHY]: "Unhealthy", [Health.HEALTH_UNKNOWN]: "Unknown" };
const UINT32_MAX = 0xffff_ffff;

/** The subcommands, exported for the generated reference (docs/reference/flags.md). */
export const commands: Record<string, Command> = {
  "get clusters": {
    usage: "get clusters [-o table|json|yaml]",
    summary: "member clusters: Ready, connected, version, nodes, capacity, last heartbeat",
    flags: [outputFlag("table")],
    formats: ["table", "json", "yaml"],
    async run({ client, format, timeoutMs }) {
      const res = await call(client, client.listClusters, {}, timeoutMs);
      if (format !== "table") return structured(res.clusters, format);
      const now = Date.now();
      const cpu = (c: ClusterInfo) => `${c.resourceSummary?.allocated?.cpu ?? "0"}/${c.resourceSummary?.allocatable?.cpu ?? "-"}`;
      const memory = (c: ClusterInfo) => `${bytes(c.resourceSummary?.allocated?.memory ?? "0")}/${bytes(c.resourceSummary?.allocatable?.memory)}`;
      return table(
        ["name", "ready", "connected", "version", "nodes", "cpu", "memory", "heartbeat"],
        res.clusters.map((c) => [c.name, String(c.ready), String(c.connected), c.kubernetesVersion || "-", `${c.nodeSummary?.ready ?? 0}/${c.nodeSummary?.total ?? 0}`, cpu(c), memory(c), age(c.lastHeartbeatTime, now)]),
      );
    },
  },
  "get works": {
    usage: "get works --cluster X [-o table|json|yaml]",
    summary: "the Works the control plane holds for one cluster, with what its agent reported",
    flags: [{ ...clusterFlag, required: true }, outputFlag("table")],
    formats: ["table", "json", "yaml"],
    async run({ client, flags, format, timeoutMs }) {
      const res = await call(client, client.listWorks, { cluster: String(flags.cluster) }, timeoutMs);
      if (format !== "table") return structured(res.works, format);
      const short = (h: string) => (h === "" ? "-" : h.slice(0, 12));
      return table(
        ["work", "hash", "observed", "applied", "available", "reason"],
        res.works.map((w) => [w.workKey, short(w.contentHash), short(w.observedHash), String(w.applied), String(w.available), w.reason || "-"]),
      );
    },
  },
  "get bindings": {
    usage: "get bindings [-n ns | -A | --cluster-scoped] [-o table|json|yaml]   (also: rb, crb)",
    summary: "ResourceBindings: template, clusters (with replicas), Scheduled, FullyApplied",
    flags: [{ ...namespaceFlag, default: "", help: "only this namespace's bindings" }, allNamespacesFlag, clusterScopedFlag, outputFlag("table")],
    formats: ["table", "json", "yaml"],
    async run({ client, flags, format, timeoutMs }) {
      const res = await call(client, client.listBindings, { namespace: flags["all-namespaces"] ? "" : String(flags.namespace ?? "") }, timeoutMs);
      const bindings = flags["cluster-scoped"] ? res.bindings.filter((b) => b.namespace === "") : res.bindings;
      if (format !== "table") return structured(bindings, format);
      return table(
        ["namespace", "name", "template", "clusters", "scheduled", "applied", "reason"],
        bindings.map((b) => [b.namespace || "-", b.name, `${b.template?.kind ?? ""}/${b.template?.name ?? ""}`, b.clusters.join(",") || "-", b.scheduled, b.fullyApplied, b.reason || "-"]),
      );
    },
  },
  ...Object.fromEntries(Object.entries(POLICY_PLURALS).map(([plural, { kind, namespaced }]) => [`get ${plural}`, policyListCommand(plural, kind, namespaced)])),
  "token create": {
    usage: "token create [--ttl 24h] [--uses N] [--description TEXT]",
    summary: "a bootstrap token for registering members (printed once, on stdout)",
    flags: [ttlFlag, usesFlag, descriptionFlag, outputFlag("table")],
    formats: ["table", "json", "yaml"],
    async run({ client, flags, format, timeoutMs, warn }) {
      const ttlSeconds = Math.ceil(Number(flags.ttl) / 1000);
      if (ttlSeconds <= 0) throw new FlagError("--ttl must be positive");
      const uses = Number(flags.uses ?? 0);
      if (uses < 0 || uses > UINT32_MAX) throw new FlagError("--uses must be 0 (any number) or more");
      // The control plane judges the TTL; a value past uint32 is sent as the largest, never wrapped to a small one.
      const req = { ttlSeconds: Math.min(ttlSeconds, UINT32_MAX), uses, description: String(flags.description ?? "") };
      const res = await call(client, client.createToken, req, timeoutMs);
      if (format !== "table") return structured(res, format);
      const good = uses === 0 ? "" : ` for ${uses} registration${uses === 1 ? "" : "s"}`;
      warn(`# token ${res.id}, valid until ${res.expires}${good}; give it to the agent chart (bootstrapToken) or --bootstrap-token`);
      return res.token;
    },
  },
  "token list": {
    usage: "token list [-o table|json|yaml]",
    summary: "bootstrap tokens: id, expiry, description (never the secret)",
    flags: [outputFlag("table")],
    formats: ["table", "json", "yaml"],
    async run({ client, format, timeoutMs }) {
      const res = await call(client, client.listTokens, {}, timeoutMs);
      if (format !== "table") return structured(res.tokens, format);
      const uses = (t: { usesAllowed: number; uses: number }) => (t.usesAllowed === 0 ? "-" : `${t.uses}/${t.usesAllowed}`);
      return table(["id", "expires", "expired", "uses", "description"], res.tokens.map((t) => [t.id, t.expires, String(t.expired), uses(t), t.description || "-"]));
    },
  },
  "token delete": {
    usage: "token delete <id>",
    positionals: 1,
    summary: "deletes a bootstrap token: no new member can register with it",
    flags: [],
    formats: ["table"],
    async run({ client, args, timeoutMs }) {
      await call(client, client.deleteToken, { id: String(args[0]) }, timeoutMs);
      return `token ${args[0]} deleted`;
    },
  },
  "deletions list": {
    usage: "deletions list [--cluster X] [--kubeconfig FILE] [-o table|json|yaml]",
    summary: "the deletions the blast-radius brake holds (control plane --deletion-budget-*), per cluster and template",
    flags: [clusterFlag, kubeconfigFlag, outputFlag("table")],
    formats: ["table", "json", "yaml"],
    direct: true,
    async run({ flags, format, timeoutMs }) {
      const held = await listHeldDeletions(flags, typeof flags.cluster === "string" ? flags.cluster : undefined, timeoutMs);
      if (format !== "table") return structured(held, format);
      if (held.length === 0) return "no deletions are held";
      return table(["cluster", "kind", "namespace", "name", "binding"], held.map((h) => [h.cluster, h.kind, h.namespace ?? "-", h.name, h.binding]));
    },
  },
  "deletions approve": {
    usage: "deletions approve <cluster> [--kubeconfig FILE]",
    positionals: 1,
    summary: "sends the deletions held for a cluster (its window starts again)",
    flags: [kubeconfigFlag],
    formats: ["table"],
    direct: true,
    run: ({ args, flags, timeoutMs }) => decideHeldDeletions(flags, String(args[0]), "approve", timeoutMs),
  },
  "deletions reject": {
    usage: "deletions reject <cluster> [--kubeconfig FILE]",
    positionals: 1,
    summary: "keeps the objects whose deletion is held for a cluster: they stay in the member, released from Flotilla",
    flags: [kubeconfigFlag],
    formats: ["table"],
    direct: true,
    run: ({ args, flags, timeoutMs }) => decideHeldDeletions(flags, String(args[0]), "reject", timeoutMs),
  },
  accept: {
    usage: "accept <cluster> [--kubeconfig FILE]",
    positionals: 1,
    summary: "accept a new member cluster: with --require-acceptance it receives nothing until then (sets spec.hubAcceptsClient in the control cluster)",
    flags: [kubeconfigFlag],
    formats: ["table"],
    direct: true,
    run: ({ args, flags, timeoutMs }) => acceptCluster(flags, String(args[0]), timeoutMs),
  },
  unjoin: {
    usage: "unjoin <cluster> [--force]",
    positionals: 1,
    summary: "removes a member: its agent removes what Flotilla applied, then its Cluster and certificate are gone; --force does not wait (for a cluster that will not come back)",
    flags: [forceFlag],
    formats: ["table"],
    async run({ client, args, flags, timeoutMs }) {
      const res = await call(client, client.unjoin, { cluster: String(args[0]), force: flags.force === true }, timeoutMs);
      return res.message;
    },
  },
  describe: {
    usage: "describe <kind>/<name> [-n ns] [--limit N [--continue TOKEN]] [-o table|json|yaml]",
    positionals: 1,
    summary: "a template's propagation per cluster: replicas, applied, health, status word and message; every cluster, also those a large binding's status leaves out, a page at a time with --limit and --continue",
    flags: [namespaceFlag, limitFlag, continueFlag, outputFlag("table")],
    formats: ["table", "json", "yaml"],
    async run({ client, args, flags, format, timeoutMs, warn }) {
      const req = { template: templateRef(args[0], flags), limit: Number(flags.limit ?? 0), continueToken: String(flags.continue ?? "") };
      const res = await call(client, client.getPropagation, req, timeoutMs);
      if (res.continueToken !== "") warn(`# ${res.remainingItemCount} more clusters: --continue ${res.continueToken}`);
      if (format !== "table") return structured(res.clusters, format);
      return table(
        ["cluster", "replicas", "applied", "health", "reason", "message"],
        res.clusters.map((c) => [c.cluster, String(c.replicas), String(c.applied), HEALTH_WORD[c.health] ?? "-", c.reason || "-", c.message || "-"]),
      );
    },
  },
  explain: {
    usage: "explain <kind>/<name> [-n ns] [--cluster X] [-o json]",
    positionals: 1,
    summary: "why a template is, or is not, in each cluster: the policy that claims it, which placement rule selected or filtered each cluster, the replicas given, the Work rendered, shipped and applied, health, the last error and its time, the rollout; -o json gives the same as JSON",
    flags: [clusterFlag, namespaceFlag, outputFlag("table")],
    formats: ["table", "json"],
    async run({ client, args, flags, format, timeoutMs }) {
      const res = await call(client, client.explain, { template: templateRef(args[0], flags), cluster: String(flags.cluster ?? "") }, timeoutMs);
      return format === "json" ? structured(JSON.parse(res.explanationJson) as unknown, "json") : res.text.trimEnd();
    },
  },
  render: {
    usage: "render <kind>/<name> --cluster X [-n ns] [-o yaml|json]",
    positionals: 1,
    summary: "the object a cluster gets for a template, after overrides (a preview when it is not a target)",
    flags: [{ ...clusterFlag, required: true }, namespaceFlag, outputFlag("yaml")],
    formats: ["yaml", "json"],
    async run({ client, args, flags, format, timeoutMs, warn }) {
      const res = await call(client, client.render, { template: templateRef(args[0], flags), cluster: String(flags.cluster) }, timeoutMs);
      const what = templateTitle(res.template, "the template");
      warn(res.placed ? `# ${flags.cluster} receives exactly this for ${what} (content hash ${res.contentHash})` : `# preview: ${flags.cluster} is not a target of ${what}`);
      const objects = res.manifests.map((m) => JSON.parse(m.toString("utf8")) as unknown);
      const value = objects.length === 1 ? objects[0] : objects;
      return format === "json" ? structured(value, "json") : objects.map((o) => structured(o, "yaml")).join("\n---\n");
    },
  },
  diff: {
    usage: "diff <kind>/<name> --cluster X [-n ns]",
    positionals: 1,
    summary: "the rendered object against what the member holds (read live through its agent), as a unified diff of the fields Flotilla sets; Secret values show as digests",
    flags: [{ ...clusterFlag, required: true }, namespaceFlag],
    formats: ["table"],
    async run({ client, args, flags, timeoutMs, warn }) {
      const res = await call(client, client.diff, { template: templateRef(args[0], flags), cluster: String(flags.cluster) }, timeoutMs);
      if (!res.placed) warn(`# preview: ${flags.cluster} is not a target of this template`);
      const text = unifiedDiff(res.objects.map((o) => ({ rendered: JSON.parse(o.rendered.toString("utf8")), live: o.liveExists ? (JSON.parse(o.live.toString("utf8")) as unknown) : undefined })));
      if (text === "") warn(`# no differences: ${flags.cluster} holds what Flotilla renders`);
      return text.trimEnd();
    },
  },
  plan: {
    usage: "plan -f FILE [-n ns] [--diff] [-o table|json|yaml]",
    summary: "what applying the objects in FILE (YAML or JSON, - for stdin; templates and the policies to plan them with) would ship, before they are applied: per template the policy that selects it, and per cluster the change, replicas and content hash now → after; --diff shows each Work's change",
    flags: [fileFlag, planNamespaceFlag, diffFlag, outputFlag("table")],
    formats: ["table", "json", "yaml"],
    async run({ client, flags, format, timeoutMs, warn }) {
      const objects = await readObjects(String(flags.filename));
      const res = await call(client, client.plan, { objects: objects.map((o) => Buffer.from(JSON.stringify(o))), namespace: String(flags.namespace ?? "") }, timeoutMs);
      if (format !== "table") {
        const parsed = (ms: Uint8Array[]) => ms.map((m) => JSON.parse(Buffer.from(m).toString("utf8")) as unknown);
        const work = (w: PlannedWork | undefined) => (w === undefined ? undefined : { ...w, manifests: parsed(w.manifests) });
        return structured({ ...res, templates: res.templates.map((t) => ({ ...t, clusters: t.clusters.map((c) => ({ ...c, now: work(c.now), planned: work(c.planned) })) })) }, format);
      }
      for (const line of planSummary(res)) warn(line);
      const rows = table(["template", "cluster", "change", "replicas", "hash", "error"], planRows(res));
      return flags.diff ? `${rows}\n${planDiff(res)}`.trimEnd() : rows;
    },
  },
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
  "rollout status": {
    usage: "rollout status <kind>/<name> [-n ns] [-o table|json|yaml]",
    positionals: 1,
    summary: "a template's progressive rollout (its policy has spec.rollout): revision, stable revision, phase and what it waits for, then each cluster by group: the revision it is told to run, its phase and since when",
    flags: [namespaceFlag, outputFlag("table")],
    formats: ["table", "json", "yaml"],
    async run({ client, args, flags, format, timeoutMs }) {
      const res = await call(client, client.rollout, { template: templateRef(args[0], flags), verb: "status", group: "" }, timeoutMs);
      return format === "table" ? rolloutTable(res, Date.now()) : structured(res, format);
    },
  },
  ...rolloutCommand("pause", "pauses a template's rollout: no more clusters start until resume (each keeps the revision it is told)"),
  ...rolloutCommand("resume", "resumes a paused rollout (failures so far are accepted; a failed rollback is tried again)"),
  ...rolloutCommand("approve", "gives the approval the rollout waits for (BeforeGroup/AfterGroup), or with --group that group's ahead of time", [groupFlag]),
  ...rolloutCommand("abort", "stops a rollout for good: every cluster keeps the revision it runs until the template changes"),
  ...rolloutCommand("undo", "rolls every cluster the rollout reached back to the stable revision (the last that succeeded everywhere)"),
  promote: {
    usage: "promote <kind>/<name> [-n ns] --cluster C --cluster-kubeconfig F [--cluster-context X] [--auto-create-policy=false] [--policy-name P] [--dry-run] [--kubeconfig FILE] [-o yaml|json]",
    positionals: 1,
    summary: "adopts an object that already runs in a member, as karmadactl promote: reads it there, writes it as a template to the control cluster with a policy placing exactly it on that member (conflictResolution Overwrite, preserveResourcesOnDeletion); the member's agent takes the running object over in place (same uid, no restart); -o prints both and writes nothing",
    flags: [{ ...clusterFlag, short: "C", required: true }, namespaceFlag, clusterKubeconfigFlag, clusterContextFlag, autoCreatePolicyFlag, policyNameFlag, dryRunFlag, kubeconfigFlag, outputFlag("table")],
    formats: ["table", "yaml", "json"],
    direct: true,
    run: ({ args, flags, format, timeoutMs, warn }) => runPromote(flags, args[0], format as "table" | "yaml" | "json", timeoutMs, warn),
  },
  interpret: {
    usage: "interpret -f FILE (--check | --operation OP [--desired-file F] [--observed-file F] [--status-file F] [--desired-replica N]) [-o yaml|json]",
    summary: "tests ResourceInterpreterCustomizations locally, as karmadactl interpret: --check checks their scripts; --operation runs one on the given objects and prints its results (retained, replica and requires, revised, status, aggregatedStatus, healthy, dependencies, components)",
    flags: [customizationFileFlag, recursiveFlag, checkFlag, operationFlag, desiredFileFlag, observedFileFlag, statusFileFlag, desiredReplicaFlag, outputFlag("yaml")],
    formats: ["yaml", "json"],
    direct: true,
    run: ({ flags, format }) => runInterpret(flags, format === "json" ? "json" : "yaml"),
  },
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

/** `rollout <verb>`: a command on a template's rollout, printed as one line saying what changed. */
function rolloutCommand(verb: "pause" | "resume" | "approve" | "abort" | "undo", summary: string, extra: FlagSpec[] = []): Record<string, Command> {
  const command: Command = {
    usage: `rollout ${verb} <kind>/<name> [-n ns]${verb === "approve" ? " [--group G]" : ""}`,
    positionals: 1,
    summary,
    flags: [namespaceFlag, ...extra],
    formats: ["table"],
    async run({ client, args, flags, timeoutMs }) {
      const res = await call(client, client.rollout, { template: templateRef(args[0], flags), verb, group: String(flags.group ?? "") }, timeoutMs);
      return rolloutChangeLine(res);
    },
  };
  return { [`rollout ${verb}`]: command };
}

/** `get propagationpolicies` and its three siblings (also by Karmada's short names: pp, cpp, op, cop). */
function policyListCommand(plural: string, kind: string, namespaced: boolean): Command {
  const short = Object.entries(GET_NAMES).find(([k, v]) => v === plural && k.length <= 3)?.[0] ?? plural;
  return {
    usage: `get ${plural} ${namespaced ? "[-n ns | -A] " : ""}[--kubeconfig FILE] [-o table|json|yaml]   (also: ${short})`,
    summary: `${kind}s in the control cluster: name, selectors${kind.includes("Propagation") ? ", priority" : ""}`,
    flags: [...(namespaced ? [{ ...namespaceFlag, help: "this namespace's" }, allNamespacesFlag] : []), kubeconfigFlag, outputFlag("table")],
    formats: ["table", "json", "yaml"],
    direct: true,
    async run({ flags, format, timeoutMs }) {
      const items = await listPolicies(flags, plural, namespaced && !flags["all-namespaces"] ? String(flags.namespace ?? "default") : undefined, timeoutMs);
      if (format !== "table") return structured(items, format);
      if (items.length === 0) return `no ${plural}`;
      const now = Date.now();
      const propagation = kind.includes("Propagation");
      return table(
        [...(namespaced ? ["namespace"] : []), "name", "selectors", ...(propagation ? ["priority"] : []), "age"],
        items.map((p) => [...(namespaced ? [p.metadata.namespace ?? "-"] : []), p.metadata.name ?? "", selectorsCell(p), ...(propagation ? [String(p.spec.priority ?? 0)] : []), p.metadata.creationTimestamp === undefined ? "-" : age(p.metadata.creationTimestamp, now)]),
      );
    },
  };
}

function templateRef(arg: string | undefined, flags: FlagValues): TemplateRef {
  const kn = kindAndName(arg);
  if ("error" in kn) throw new FlagError(kn.error);
  return { apiVersion: "", kind: kn.kind, namespace: String(flags.namespace ?? ""), name: kn.name };
}

function usage(): string {
  return [
    "usage: flotillactl <command> [flags]",
    "",
    ...Object.values(commands).flatMap((c) => [`flotillactl ${c.usage}`, `    ${c.summary}`, flagHelp(c.flags), ""]),
    "Connection flags (every command):",
    flagHelp(connectionFlags),
    "",
    "Exit codes: 0 success, 1 the call failed, 2 bad usage.",
  ].join("\n");
}

async function runCommand(command: Command, rest: string[]): Promise<string> {
  const { flags, positionals } = parseArgs([...command.flags, ...connectionFlags], rest, process.env);
  if (positionals.length !== (command.positionals ?? 0)) throw new FlagError(`usage: flotillactl ${command.usage}`);
  const format = outputFormat(flags.output === undefined ? (command.formats[0] as string) : String(flags.output), command.formats);
  if (typeof format !== "string") throw new FlagError(format.error);
  if (command.direct) return command.run({ client: undefined as never, args: positionals, flags, format, timeoutMs: Number(flags.timeout), warn: (s) => console.error(s) });
  const connection = await connect(flags);
  const { server } = connection;
  let client = connection.client;
  try {
    // A call that needs the agent's own replica (diff) tries other connections: behind a Service
    // of several replicas, each new connection may land on another one.
    for (let attempt = 1; ; attempt++) {
      try {
        return await command.run({ client, args: positionals, flags, format, timeoutMs: Number(flags.timeout), warn: (s) => console.error(s) });
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

if (import.meta.main) process.argv.splice(2, Infinity, ...resolveGetName(process.argv.slice(2)));
if (import.meta.main) runCommandLine("flotillactl", commands, usage, runCommand, () => "run `flotillactl help` for usage");
