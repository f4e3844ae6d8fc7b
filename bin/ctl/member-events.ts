// `flotillactl events <kind>/<name>`: the Events about a workload and its pods in every member it
// runs in, merged oldest first with a CLUSTER column; -w then prints each new one as it comes.
import { createInterface } from "node:readline";
import { FlagError } from "../../shared/flags.ts";
import type { ResourceInfo } from "../../shared/kube-rest.ts";
import type { CommandContext } from "./command.ts";
import { EVENT_HEADERS, eventRow, eventRows, type KubeEvent, lastSeen, ownedBy, relatedUids } from "./event-rows.ts";
import { columnWidths, structured, table, tableRow } from "./format.ts";
import { fanOut } from "./member-api.ts";
import { readPath } from "./member-discovery.ts";
import { mergeObjects } from "./member-table.ts";
import { type MemberObject, readWorkload, type WorkloadTargets, workloadTargets } from "./member-targets.ts";

const EVENTS: ResourceInfo = { apiVersion: "v1", kind: "Event", plural: "events", namespaced: true };

/** How long a broken watch waits before it is opened again. */
const REWATCH_MS = 2000;

export async function runMemberEvents(ctx: CommandContext): Promise<string> {
  const { flags, format, warn } = ctx;
  const watch = flags.watch === true;
  if (watch && format !== "table") throw new FlagError("-w prints a table: leave out -o");
  const t = await workloadTargets(ctx);
  try {
    const found = await fanOut(t.clusters, async (cluster) => {
      const w = await readWorkload(t, cluster);
      const related = relatedUids(w.object, w.pods);
      const list = await t.api.get<{ metadata?: { resourceVersion?: string }; items?: KubeEvent[] }>(cluster, readPath(EVENTS, t.namespace, undefined));
      const events = (list.items ?? []).filter((e) => related.has(e.involvedObject?.uid ?? ""));
      return { related, events, resourceVersion: list.metadata?.resourceVersion ?? "" };
    }, warn);
    if (format !== "table") return structured(mergeObjects(found.map((f) => ({ cluster: f.key, objects: f.value.events.map((e) => ({ apiVersion: "v1", kind: "Event", ...e })) }))), format);
    const rows = eventRows(found.map((f) => ({ cluster: f.key, events: f.value.events })), Date.now());
    if (!watch) {
      if (rows.length === 0) warn(`No events about ${t.kind}/${t.name} in ${t.namespace}`);
      return rows.length === 0 ? "" : table(EVENT_HEADERS, rows);
    }
    const widths = columnWidths(EVENT_HEADERS, rows).map((w, i) => Math.max(w, [10, 8, 7, 18, 28][i - 1] ?? 0));
    process.stdout.write(`${tableRow(EVENT_HEADERS.map((h) => h.toUpperCase()), widths)}\n${rows.map((r) => `${tableRow(r, widths)}\n`).join("")}`);
    const write = (cluster: string, e: KubeEvent) => process.stdout.write(`${tableRow(eventRow(cluster, e, Date.now()), widths)}\n`);
    await Promise.all(found.map((f) => watchEvents(t, f.key, f.value, write, warn)));
    return "";
  } finally {
    t.api.close();
  }
}

/** Prints the cluster's new events about the workload until the process ends, opening the watch again when it breaks. */
async function watchEvents(t: WorkloadTargets, cluster: string, start: { related: Set<string>; events: KubeEvent[]; resourceVersion: string }, write: (cluster: string, e: KubeEvent) => void, warn: (s: string) => void): Promise<never> {
  const printed = new Set(start.events.map(key));
  const judged = new Map<string, boolean>();
  let resourceVersion = start.resourceVersion;
  const isAbout = async (e: KubeEvent): Promise<boolean> => {
    const uid = e.involvedObject?.uid ?? "";
    if (start.related.has(uid)) return true;
    if (uid === "" || judged.has(uid)) return judged.get(uid) === true;
    const about = await relatedObject(t, cluster, e.involvedObject ?? {}, start.related, 2).catch(() => false);
    judged.set(uid, about);
    return about;
  };
  for (;;) {
    try {
      const query = { watch: "true", allowWatchBookmarks: "true", resourceVersion };
      const res = await t.api.stream(cluster, readPath(EVENTS, t.namespace, undefined, query));
      for await (const line of createInterface({ input: res })) {
        if (line.trim() === "") continue;
        const change = JSON.parse(line) as { type: string; object: KubeEvent & { code?: number } };
        if (change.type === "ERROR") {
          // 410 Gone: the resource version is too old; watch from now (what was printed is not printed again).
          if (change.object.code === 410) resourceVersion = "";
          break;
        }
        resourceVersion = change.object.metadata?.resourceVersion ?? resourceVersion;
        if (change.type === "BOOKMARK" || change.type === "DELETED" || printed.has(key(change.object))) continue;
        if (!(await isAbout(change.object))) continue;
        printed.add(key(change.object));
        write(cluster, change.object);
      }
    } catch (err) {
      warn(`cluster ${cluster}: the watch of events broke off: ${err instanceof Error ? err.message : String(err)}`);
    }
    await new Promise((r) => setTimeout(r, REWATCH_MS));
  }
}

/** An event printed once per change: its uid, count and last time. */
function key(e: KubeEvent): string {
  return `${e.metadata?.uid ?? ""}/${e.series?.count ?? e.count ?? 1}/${lastSeen(e)}`;
}

/** Whether an object an event names is the workload's: owned by a related object, through at most `depth` owners; related ones join the set. */
async function relatedObject(t: WorkloadTargets, cluster: string, ref: { kind?: string; name?: string; apiVersion?: string; namespace?: string; uid?: string }, related: Set<string>, depth: number): Promise<boolean> {
  if (ref.kind === undefined || ref.name === undefined) return false;
  const group = (ref.apiVersion ?? "").includes("/") ? `.${(ref.apiVersion ?? "").split("/")[0]}` : "";
  const info = await t.resources.resolve(cluster, `${ref.kind}${group}`);
  const obj = await t.api.get<MemberObject>(cluster, readPath(info, ref.namespace || t.namespace, ref.name));
  let about = ownedBy(obj, related);
  if (!about && depth > 0) {
    for (const owner of (obj.metadata?.ownerReferences ?? []).filter((o) => o.controller === true)) {
      if (await relatedObject(t, cluster, { ...owner, namespace: ref.namespace || t.namespace }, related, depth - 1)) about = true;
    }
  }
  if (about && obj.metadata?.uid) related.add(obj.metadata.uid);
  return about;
}
