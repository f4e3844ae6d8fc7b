// docs/development/README.md draws the whole tree in one table (issue 38): every folder at the top,
// and every folder of control-plane/, agent/, shared/ and test/, with what it may import. The table
// must name exactly those folders, and its "may import" column must say what the import rules
// (test/import-rules.ts) allow.
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { AGENT_FOLDER_IMPORTS, FOLDER_IMPORTS } from "./import-rules.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
/** The folders whose sub-folders the table names one by one. */
const DESCENDED = ["control-plane", "agent", "shared", "test"];
/** What is never the repository's own tree: installed, built or generated, and git's own. */
const NOT_TREE = new Set([".git", "node_modules", "dist", "test-output", ".flotilla"]);

interface Row {
  folder: string;
  mayImport: string;
}

/** The rows of the table under "## The tree": the folder without its trailing slash. */
export function treeRows(markdown: string): Row[] {
  const section = markdown.split(/^## The tree$/m)[1]?.split(/^## /m)[0] ?? "";
  const rows: Row[] = [];
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    const folder = /^`([^`]+)\/`$/.exec(cells[1] ?? "")?.[1];
    if (folder !== undefined) rows.push({ folder, mayImport: cells[3] ?? "" });
  }
  return rows;
}

/** The may-import cell as the import rules' entries: `folder/` → folder, `folder/file.ts` stays; "no other folder" is none. */
export function importEntries(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => (m[1] ?? "").replace(/\/$/, "")).sort();
}

async function subfolders(path: string): Promise<string[]> {
  const ignored = (await readFile(join(root, ".gitignore"), "utf8")).split("\n").map((l) => l.trim().replace(/\/$/, ""));
  return (await readdir(join(root, path), { withFileTypes: true }))
    .filter((e) => e.isDirectory() && !NOT_TREE.has(e.name))
    .map((e) => (path === "" ? e.name : `${path}/${e.name}`))
    .filter((f) => !ignored.includes(f) && !(f.startsWith(".") && f !== ".ci"));
}

describe("the tree table of docs/development/README.md", async () => {
  const rows = treeRows(await readFile(join(root, "docs/development/README.md"), "utf8"));

  it("names every folder once, and no folder that does not exist", async () => {
    const top = await subfolders("");
    const want = [...top, ...(await Promise.all(DESCENDED.map((d) => subfolders(d)))).flat()].sort();
    const named = rows.map((r) => r.folder);
    assert.deepEqual([...named].sort(), want);
    assert.equal(new Set(named).size, named.length, "a folder named twice");
  });

  it("says what each control-plane/ and agent/ folder may import, as the import rules do", () => {
    const tables: [string, Readonly<Record<string, readonly string[]>>][] = [
      ["control-plane/", FOLDER_IMPORTS],
      ["agent/", AGENT_FOLDER_IMPORTS],
    ];
    let checked = 0;
    for (const [side, table] of tables) {
      for (const [folder, allowed] of Object.entries(table)) {
        const row = rows.find((r) => r.folder === `${side}${folder}`);
        assert.ok(row !== undefined, `no row for ${side}${folder}`);
        assert.deepEqual(importEntries(row.mayImport), [...allowed].sort(), `${side}${folder}: the table says ${row.mayImport || "nothing"}`);
        checked++;
      }
    }
    assert.ok(checked > 30, `checked ${checked} folders`);
  });
});

describe("treeRows and importEntries", () => {
  it("reads the folder and the may-import cell of each row of the section only", () => {
    const md = ["## Other", "| `x/` | not this | |", "## The tree", "", "| folder | owns | may import |", "|---|---|---|", "| `a/` | A | no other folder |", "| `a/b/` | B | `c/`, `d/e.ts` |", "## Next", "| `z/` | no | |"].join("\n");
    assert.deepEqual(treeRows(md), [
      { folder: "a", mayImport: "no other folder" },
      { folder: "a/b", mayImport: "`c/`, `d/e.ts`" },
    ]);
    assert.deepEqual(importEntries("`c/`, `d/e.ts`"), ["c", "d/e.ts"]);
    assert.deepEqual(importEntries("no other folder"), []);
  });
});
