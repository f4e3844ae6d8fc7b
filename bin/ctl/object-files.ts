// The objects flotillactl reads from files (plan -f, interpret's inputs): YAML documents or JSON,
// from a file, a directory (its .yaml, .yml and .json files, as kubectl -f reads one) or stdin (-).
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { FlagError } from "../../shared/flags.ts";

/** One object and where it came from (the file, or STDIN). */
export interface SourcedObject {
  source: string;
  value: unknown;
}

const EXTENSIONS = [".yaml", ".yml", ".json"];

/**
 * Every object `path` holds, in file order (a directory's files sorted by name; below it only
 * with `recursive`): each YAML document, a `kind: List`'s items and a top-level list's elements
 * opened up; empty documents skipped.
 */
export async function readSourcedObjects(path: string, opts: { recursive?: boolean } = {}): Promise<SourcedObject[]> {
  if (path === "-") return parseObjects(await readStdin(), "STDIN");
  const info = await stat(path).catch((err: unknown) => {
    throw new Error(`cannot read ${path}: ${(err as Error).message}`);
  });
  if (!info.isDirectory()) return parseObjects(await readText(path), path);
  const entries = await readdir(path, { recursive: opts.recursive === true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile() && EXTENSIONS.some((x) => e.name.endsWith(x))).map((e) => join(e.parentPath, e.name)).sort();
  const out: SourcedObject[] = [];
  for (const file of files) out.push(...parseObjects(await readText(file), file));
  return out;
}

/** The objects a file (or stdin for -) holds; bad usage when it holds none. */
export async function readObjects(file: string): Promise<unknown[]> {
  const objects = (await readSourcedObjects(file)).map((o) => o.value);
  if (objects.length === 0) throw new FlagError(`${file} holds no object`);
  return objects;
}

function readText(file: string): Promise<string> {
  return readFile(file, "utf8").catch((err: unknown) => {
    throw new Error(`cannot read ${file}: ${(err as Error).message}`);
  });
}

function parseObjects(text: string, source: string): SourcedObject[] {
  const out: SourcedObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(`${source} is not YAML or JSON: ${doc.errors[0]?.message}`);
    const value = doc.toJS() as unknown;
    if (value === null || value === undefined) continue;
    const list = value as { kind?: unknown; items?: unknown };
    const items = Array.isArray(value) ? (value as unknown[]) : list.kind === "List" && Array.isArray(list.items) ? (list.items as unknown[]) : [value];
    out.push(...items.map((v) => ({ source, value: v })));
  }
  return out;
}

async function readStdin(): Promise<string> {
  let text = "";
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}
