// What `flotillactl plan` prints: a row per template and cluster (change, replicas and content
// hash now → after) and, with --diff, each changing Work now against after as a unified diff.
// Pure.
import type { PlannedWork, PlanResponse, TemplatePlan } from "../../shared/gen/flotilla/v1alpha1/admin.ts";
import { templateTitle } from "./format.ts";
import { unifiedDiff } from "./object-diff.ts";

/** "Kind ns/name" of a planned template. */
function templateName(t: TemplatePlan): string {
  return templateTitle(t.template, "?");
}

/** Table rows: template, cluster, change, replicas, hash, and the error of an override that cannot apply. */
export function planRows(res: PlanResponse): string[][] {
  const replicas = (w: PlannedWork | undefined) => (w === undefined ? "-" : w.replicas === undefined ? "n/a" : String(w.replicas));
  const hash = (w: PlannedWork | undefined) => (w === undefined || w.contentHash === "" ? "-" : w.contentHash.slice(0, 12));
  const arrow = (a: string, b: string) => (a === b ? a : `${a} → ${b}`);
  return res.templates.flatMap((t) =>
    t.clusters.length === 0
      ? [[templateName(t), "-", t.policy === "" ? "unselected" : "unplaced", "-", "-", "-"]]
      : t.clusters.map((c) => [templateName(t), c.cluster, c.change, arrow(replicas(c.now), replicas(c.planned)), arrow(hash(c.now), hash(c.planned)), c.planned?.error || "-"]),
  );
}

/** What to say about each template on stderr: the policy that selects it and any scheduling message. */
export function planSummary(res: PlanResponse): string[] {
  return [
    ...res.templates.flatMap((t) => [
      t.policy === "" ? `# ${templateName(t)}: no propagation policy selects it` : `# ${templateName(t)}: ${t.policy}`,
      ...(t.scheduleMessage ? [`#   scheduling: ${t.scheduleMessage}`] : []),
    ]),
    ...res.notes.map((n) => `# note: ${n}`),
  ];
}

/** Per template and cluster whose Work would change: a header and the unified diff of its objects. */
export function planDiff(res: PlanResponse): string {
  const out: string[] = [];
  for (const t of res.templates) {
    for (const c of t.clusters) {
      if (!["added", "changed", "removed"].includes(c.change)) continue;
      const now = (c.now?.manifests ?? []).map(parse);
      const planned = (c.planned?.manifests ?? []).map(parse);
      const header = `# ${templateName(t)} on ${c.cluster}: ${c.change}`;
      if (planned.length === 0) {
        out.push(`${header}; its agent deletes ${now.map(identity).join(", ")}\n`);
        continue;
      }
      out.push(`${header}\n${unifiedDiff(planned.map((p, i) => ({ rendered: p, live: now[i] })), { before: "now", after: "planned" })}`);
    }
  }
  return out.join("");
}

type Manifest = { apiVersion: string; kind: string; metadata?: { namespace?: string; name?: string } };

/** A manifest with its keys in one order (the Work now and a dry run's answer order them differently). */
function parse(bytes: Uint8Array): Manifest {
  return ordered(JSON.parse(Buffer.from(bytes).toString("utf8"))) as Manifest;
}

const FIRST = ["apiVersion", "kind", "metadata", "name", "namespace"];

function ordered(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(ordered);
  if (typeof v !== "object" || v === null) return v;
  const rank = (k: string) => (FIRST.includes(k) ? FIRST.indexOf(k) : FIRST.length);
  const keys = Object.keys(v).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(keys.map((k) => [k, ordered((v as Record<string, unknown>)[k])]));
}

function identity(m: Manifest): string {
  return `${m.kind} ${m.metadata?.namespace ? `${m.metadata.namespace}/` : ""}${m.metadata?.name ?? ""}`;
}
