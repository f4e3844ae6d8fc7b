// bench:agent-rss's heap snapshots: one taken with --heapsnapshot-signal, and its breakdown (self
// sizes summed by constructor, module source by package, the growth between two).
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { waitFor } from "../env/wait.ts";
import { mib } from "./rss.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]]; edge_fields: string[]; edge_types: [string[], ...unknown[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

export interface Breakdown {
  total: number;
  groups: Map<string, { size: number; count: number }>;
  /** Bytes of script source strings, by the package the script comes from. */
  sources: Map<string, number>;
}

/** The package a script URL belongs to ("@kubernetes/client-node"), or what else it is. */
function packageOf(url: string): string {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1] as string;
  if (url.startsWith("node:") || !url.includes("/")) return "(node's own)";
  return "(flotilla)";
}

/** Self sizes summed by constructor (objects), or by kind (strings, code, arrays, closures). */
export async function heapBreakdown(path: string): Promise<Breakdown> {
  const snap = JSON.parse(await readFile(path, "utf8")) as HeapSnapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ["type", "name", "self_size"].map((f) => fields.indexOf(f)) as [number, number, number];
  const groups = new Map<string, { size: number; count: number }>();
  let total = 0;
  // Scripts: a node with a "source" and a "name" edge to strings; the source is the module's text.
  const edgeFields = snap.snapshot.meta.edge_fields;
  const [edgeNameAt, edgeToAt] = ["name_or_index", "to_node"].map((f) => edgeFields.indexOf(f)) as [number, number];
  const edgeTypes = snap.snapshot.meta.edge_types[0];
  const edgeTypeAt = edgeFields.indexOf("type");
  const countAt = fields.indexOf("edge_count");
  const sources = new Map<string, number>();
  let edge = 0;
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const edges = snap.nodes[i + countAt] as number;
    let source = -1;
    let url = "";
    for (let e = edge; e < edge + edges * edgeFields.length; e += edgeFields.length) {
      const et = edgeTypes[snap.edges[e + edgeTypeAt] as number];
      if (et === "element" || et === "hidden") continue;
      const name = snap.strings[snap.edges[e + edgeNameAt] as number];
      const to = snap.edges[e + edgeToAt] as number;
      const toType = types[snap.nodes[to + typeAt] as number] as string;
      if (!toType.endsWith("string")) continue;
      if (name === "source") source = snap.nodes[to + sizeAt] as number;
      else if (name === "name") url = snap.strings[snap.nodes[to + nameAt] as number] ?? "";
    }
    edge += edges * edgeFields.length;
    if (source >= 0 && url !== "") sources.set(packageOf(url), (sources.get(packageOf(url)) ?? 0) + source);
    const type = types[snap.nodes[i + typeAt] as number] as string;
    const name = snap.strings[snap.nodes[i + nameAt] as number] ?? "";
    const size = snap.nodes[i + sizeAt] as number;
    const group =
      // Native nodes by their whole name ("Node / TLSWrap"): Node's own memory behind the objects, not V8's heap.
      type === "native" ? name || "(native)" : type === "object" ? name.split(" ")[0] || "(anonymous)" : type.endsWith("string") ? "(strings)" : type === "array" ? `(array ${name})` : `(${type})`;
    const g = groups.get(group) ?? { size: 0, count: 0 };
    g.size += size;
    g.count++;
    groups.set(group, g);
    total += size;
  }
  return { total, groups, sources };
}

/** Signals the process (an agent, a control plane) to write a heap snapshot into dir and waits until the file is complete. */
export async function takeSnapshot(pid: number, dir: string): Promise<string> {
  const before = new Set(await readdir(dir));
  process.kill(pid, "SIGUSR2");
  let file = "";
  await waitFor(
    async () => {
      const fresh = (await readdir(dir)).find((f) => f.endsWith(".heapsnapshot") && !before.has(f));
      if (fresh === undefined) return false;
      file = join(dir, fresh);
      const size = (await stat(file)).size;
      await sleep(1000);
      return size > 0 && (await stat(file)).size === size;
    },
    { what: "the heap snapshot", timeoutMs: 600_000, intervalMs: 500 },
  );
  return file;
}

export function printBreakdown(label: string, b: Breakdown, top = 12): void {
  console.log(`  ${label} heap snapshot (live objects, and as "Node / …" the native memory Node reports behind them): ${mib(b.total)}; biggest by self size:`);
  for (const [name, g] of [...b.groups].sort((x, y) => y[1].size - x[1].size).slice(0, top)) {
    console.log(`    ${mib(g.size).padStart(10)}  ${String(g.count).padStart(8)} × ${name}`);
  }
  const sources = [...b.sources].sort((x, y) => y[1] - x[1]);
  console.log(`  of which module source text (kept by V8 for every loaded script): ${mib(sources.reduce((n, [, v]) => n + v, 0))}; by package:`);
  for (const [pkg, size] of sources.slice(0, 6)) console.log(`    ${mib(size).padStart(10)}  ${pkg}`);
}

export function printGrowth(idle: Breakdown, full: Breakdown, label: string, top = 10): void {
  const grown = [...full.groups].map(([name, g]) => [name, g.size - (idle.groups.get(name)?.size ?? 0), g.count - (idle.groups.get(name)?.count ?? 0)] as const);
  console.log(`  heap growth idle → ${label}: ${mib(full.total - idle.total)}; biggest:`);
  for (const [name, size, count] of grown.sort((x, y) => y[1] - x[1]).slice(0, top)) console.log(`    ${mib(size).padStart(10)}  ${String(count).padStart(8)} × ${name}`);
}
