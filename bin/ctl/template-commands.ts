// flotillactl's "Templates and policies" commands: bindings and policies, a template's
// propagation (describe, explain), what a cluster gets (render, diff, plan) and promote.
import type { PlannedWork } from "../../shared/gen/flotilla/v1alpha1/admin.ts";
import { Health } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { allNamespacesFlag, autoCreatePolicyFlag, clusterContextFlag, clusterFlag, clusterKubeconfigFlag, clusterScopedFlag, continueFlag, diffFlag, dryRunFlag, fileFlag, kubeconfigFlag, limitFlag, namespaceFlag, outputFlag, planNamespaceFlag, policyNameFlag } from "./command-flags.ts";
import { type Command, templateRef } from "./command.ts";
import { call } from "./connection.ts";
import { age, kindPlural, structured, table, templateTitle } from "./format.ts";
import { unifiedDiff } from "./object-diff.ts";
import { readObjects } from "./object-files.ts";
import { planDiff, planRows, planSummary } from "./plan-view.ts";
import { listPolicies, POLICY_PLURALS } from "./policies.ts";
import { runPromote } from "./promote.ts";
import { GET_NAMES, selectorsCell } from "./short-names.ts";

const HEALTH_WORD: Record<number, string> = { [Health.HEALTH_HEALTHY]: "Healthy", [Health.HEALTH_PROGRESSING]: "Progressing", [Health.HEALTH_UNHEALTHY]: "Unhealthy", [Health.HEALTH_UNKNOWN]: "Unknown" };

export const templateCommands: Record<string, Command> = {
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
  promote: {
    usage: "promote <kind>/<name> [-n ns] --cluster C --cluster-kubeconfig F [--cluster-context X] [--auto-create-policy=false] [--policy-name P] [--dry-run] [--kubeconfig FILE] [-o yaml|json]",
    positionals: 1,
    summary: "adopts an object that already runs in a member, as karmadactl promote: reads it there, writes it as a template to the control cluster with a policy placing exactly it on that member (conflictResolution Overwrite, preserveResourcesOnDeletion); the member's agent takes the running object over in place (same uid, no restart); -o prints both and writes nothing",
    flags: [{ ...clusterFlag, short: "C", required: true }, namespaceFlag, clusterKubeconfigFlag, clusterContextFlag, autoCreatePolicyFlag, policyNameFlag, dryRunFlag, kubeconfigFlag, outputFlag("table")],
    formats: ["table", "yaml", "json"],
    direct: true,
    run: ({ args, flags, format, timeoutMs, warn }) => runPromote(flags, args[0], format as "table" | "yaml" | "json", timeoutMs, warn),
  },
};

/** `get propagationpolicies` and its three siblings (also by Karmada's short names: pp, cpp, op, cop). */
function policyListCommand(plural: string, kind: string, namespaced: boolean): Command {
  const short = Object.entries(GET_NAMES).find(([k, v]) => v === plural && k.length <= 3)?.[0] ?? plural;
  return {
    usage: `get ${plural} ${namespaced ? "[-n ns | -A] " : ""}[--kubeconfig FILE] [-o table|json|yaml]   (also: ${short})`,
    summary: `${kindPlural(kind)} in the control cluster: name, selectors${kind.includes("Propagation") ? ", priority" : ""}`,
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

