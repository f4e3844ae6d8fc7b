// What every `flotillactl migrate` command shares (issues 26 and 39): its clients, reading a
// source's collections, and the plan and the writes: whether each converted object exists in the
// control cluster yet, and with --apply writing it there by server-side apply (field manager
// flotillactl-migrate), in the order given. It never deletes anything.
import { existsSync } from "node:fs";
import type { KubeObject } from "../../shared/api/types.ts";
import { Discovery } from "../../shared/discovery.ts";
import { isKubeStatus, KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { loadKubeConfig } from "../../shared/kubeconfig.ts";
import type { MigrationItem } from "./migrate-convert.ts";
import { migrationStructured, migrationSummary, migrationTable, type PlannedItem } from "./migrate-view.ts";

export const MIGRATE_FIELD_MANAGER = "flotillactl-migrate";

/** How long --apply waits after the other objects before writing the placing policies. */
export const SETTLE_MS = 3_000;

const isPlacingPolicy = (kind: string) => kind === "PropagationPolicy" || kind === "ClusterPropagationPolicy";

/** A client of a source or of the control cluster, or an error naming the flag when its kubeconfig is missing. */
export function migrationClient(path: string, what: string): KubeRest {
  if (!existsSync(path)) throw new Error(`no kubeconfig at ${path}: pass ${what}`);
  return new KubeRest(loadKubeConfig(path), { maxSockets: 4, userAgent: MIGRATE_FIELD_MANAGER });
}

export /** Every object of a collection (all namespaces), paged, each with its apiVersion and kind; none when it is not served. */
async function listAll(rest: KubeRest, path: string, apiVersion: string, kind: string, timeoutMs: number): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  let token: string | undefined;
  do {
    let page: { items?: KubeObject[]; metadata?: { continue?: string } };
    try {
      page = await rest.request("GET", path, { query: { limit: "500", continue: token }, timeoutMs });
    } catch (err) {
      if (isKubeStatus(err, 404)) return out;
      throw err;
    }
    for (const item of page.items ?? []) out.push({ ...item, apiVersion, kind });
    token = page.metadata?.continue || undefined;
  } while (token !== undefined);
  return out;
}

/** Whether each object exists in the control cluster yet (create or update); skip for what is not written. */
async function plan(control: KubeRest, discovery: Discovery, items: MigrationItem[], timeoutMs: number): Promise<PlannedItem[]> {
  const crdKinds = new Set(items.flatMap((i) => (i.object?.kind === "CustomResourceDefinition" ? definedKinds(i.object) : [])));
  const out: PlannedItem[] = [];
  for (const item of items) {
    const o = item.object;
    if (o === undefined) {
      out.push({ ...item, action: "skip" });
      continue;
    }
    const res = await discovery.resourceFor(o.apiVersion, o.kind);
    if (res === undefined) {
      const defined = crdKinds.has(`${o.apiVersion}|${o.kind}`);
      out.push(defined ? { ...item, action: "create" } : { ...item, problems: [...item.problems, `the control cluster does not serve ${o.kind} in ${o.apiVersion}: install its CRD there first`], action: "skip" });
      continue;
    }
    try {
      await control.request("GET", objectPath(res, res.namespaced ? o.metadata.namespace : undefined, o.metadata.name ?? ""), { timeoutMs });
      if (item.placesNowhere === true) {
        out.push({ ...item, action: "skip", problems: [...item.problems, `not written: it would empty the placement of the ${o.kind} that exists; change or delete that policy yourself if no cluster should run the object`] });
      } else out.push({ ...item, action: "update" });
    } catch (err) {
      if (!isKubeStatus(err, 404)) throw err;
      out.push({ ...item, action: "create" });
    }
  }
  return out;
}

/** The `apiVersion|kind` keys a CRD defines. */
function definedKinds(crd: KubeObject): string[] {
  const spec = crd.spec as { group?: string; names?: { kind?: string }; versions?: { name: string }[] } | undefined;
  return (spec?.versions ?? []).map((v) => `${spec?.group ?? ""}/${v.name}|${spec?.names?.kind ?? ""}`);
}

/** Writes what the plan creates or updates, in order; a kind whose CRD the migration just created is waited for (10 s). */
async function write(control: KubeRest, discovery: Discovery, items: PlannedItem[], timeoutMs: number, settleMs: number): Promise<PlannedItem[]> {
  const out: PlannedItem[] = [];
  let settled = false;
  for (const item of items) {
    const o = item.object;
    if (o === undefined || item.action === "skip") {
      out.push(item);
      continue;
    }
    // The placing policies go last, and only once the control plane has had time to see the
    // overrides and templates written before them: a Work rendered before its override reached the
    // control plane's cache would reach a member as it is, and restart what the migration adopts.
    if (!settled && isPlacingPolicy(o.kind) && out.some((i) => i.object !== undefined && i.action !== "skip")) await new Promise((r) => setTimeout(r, settleMs));
    if (isPlacingPolicy(o.kind)) settled = true;
    try {
      let res = await discovery.resourceFor(o.apiVersion, o.kind);
      for (let waited = 0; res === undefined && waited < 10_000; waited += 500) {
        await new Promise((r) => setTimeout(r, 500));
        res = await discovery.resourceFor(o.apiVersion, o.kind);
      }
      if (res === undefined) throw new Error(`the control cluster does not serve ${o.kind} in ${o.apiVersion}`);
      await control.request("PATCH", objectPath(res, res.namespaced ? o.metadata.namespace : undefined, o.metadata.name ?? ""), {
        body: o,
        contentType: "application/apply-patch+yaml",
        query: { fieldManager: MIGRATE_FIELD_MANAGER, force: "true" },
        timeoutMs,
      });
      out.push({ ...item, action: item.action === "create" ? "created" : "updated" });
    } catch (err) {
      out.push({ ...item, action: "failed", problems: [...item.problems, `write failed: ${err instanceof Error ? err.message : String(err)}`] });
    }
  }
  return out;
}

/**
 * The plan (or, with `apply`, what was written) as a table or JSON/YAML; the summary goes to
 * `warn`. Any write that fails ends in an error (exit 1) after the table is printed; objects that
 * could not be (fully) converted are listed and do not change the exit code.
 */
export async function runMigration(control: KubeRest, items: MigrationItem[], opts: { apply: boolean; format: "table" | "json" | "yaml"; timeoutMs: number; warn: (s: string) => void; settleMs?: number }): Promise<string> {
  const discovery = new Discovery(control, { refreshMs: 500 });
  const planned = await plan(control, discovery, items, opts.timeoutMs);
  const result = opts.apply ? await write(control, discovery, planned, opts.timeoutMs, opts.settleMs ?? SETTLE_MS) : planned;
  const text = opts.format === "table" ? migrationTable(result) : migrationStructured(result, opts.apply, opts.format);
  opts.warn(migrationSummary(result, opts.apply));
  const failed = result.filter((i) => i.action === "failed").length;
  if (failed > 0) {
    console.log(text);
    throw new Error(`${failed} write${failed === 1 ? "" : "s"} failed (see the table); what was written stays, run it again to retry`);
  }
  return text;
}
