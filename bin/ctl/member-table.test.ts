import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cellText, type ClusterTable, CLUSTER_ANNOTATION, type KubeTable, listItems, mergeObjects, mergeTables, noneFound } from "./member-table.ts";

const deployments = (rows: [string, string, unknown, string][], extra: { name: string; priority: number }[] = []): KubeTable => ({
  columnDefinitions: [{ name: "Name", priority: 0 }, { name: "Ready", priority: 0 }, { name: "Up-to-date", priority: 0 }, { name: "Age", priority: 0 }, { name: "Images", priority: 1 }, ...extra],
  rows: rows.map(([ns, name, upToDate, image]) => ({ cells: [name, "2/2", upToDate, "5m", image], object: { metadata: { namespace: ns, name } } })),
});

describe("merging the members' tables", () => {
  const parts: ClusterTable[] = [
    { cluster: "member1", table: deployments([["demo", "web", 2, "nginx:1.29"], ["ops", "tool", 1, "busybox"]]) },
    { cluster: "member2", table: deployments([["demo", "web", 2, "nginx:1.29"]]) },
  ];
  const cases: { name: string; parts: ClusterTable[]; opts: { wide: boolean; namespaceColumn: boolean }; headers: string[]; rows: string[][] }[] = [
    {
      name: "puts CLUSTER first and leaves out the columns kubectl shows only with -o wide",
      parts,
      opts: { wide: false, namespaceColumn: false },
      headers: ["cluster", "Name", "Ready", "Up-to-date", "Age"],
      rows: [["member1", "web", "2/2", "2", "5m"], ["member1", "tool", "2/2", "1", "5m"], ["member2", "web", "2/2", "2", "5m"]],
    },
    {
      name: "adds NAMESPACE after CLUSTER for every namespace, and the wide columns with -o wide",
      parts,
      opts: { wide: true, namespaceColumn: true },
      headers: ["cluster", "namespace", "Name", "Ready", "Up-to-date", "Age", "Images"],
      rows: [["member1", "demo", "web", "2/2", "2", "5m", "nginx:1.29"], ["member1", "ops", "tool", "2/2", "1", "5m", "busybox"], ["member2", "demo", "web", "2/2", "2", "5m", "nginx:1.29"]],
    },
    {
      name: "takes the columns of the first member that printed any (one with nothing found prints none)",
      parts: [{ cluster: "member0", table: { rows: [] } }, ...parts],
      opts: { wide: false, namespaceColumn: false },
      headers: ["cluster", "Name", "Ready", "Up-to-date", "Age"],
      rows: [["member1", "web", "2/2", "2", "5m"], ["member1", "tool", "2/2", "1", "5m"], ["member2", "web", "2/2", "2", "5m"]],
    },
    {
      name: "finds another apiserver's cells by column name, blank where it has no such column",
      parts: [parts[0] as ClusterTable, { cluster: "old", table: { columnDefinitions: [{ name: "Age" }, { name: "Name" }], rows: [{ cells: ["9d", "web"] }] } }],
      opts: { wide: false, namespaceColumn: false },
      headers: ["cluster", "Name", "Ready", "Up-to-date", "Age"],
      rows: [["member1", "web", "2/2", "2", "5m"], ["member1", "tool", "2/2", "1", "5m"], ["old", "web", "", "", "9d"]],
    },
    { name: "is only the headers when no member has any", parts: [{ cluster: "member1", table: deployments([]) }], opts: { wide: false, namespaceColumn: true }, headers: ["cluster", "namespace", "Name", "Ready", "Up-to-date", "Age"], rows: [] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(mergeTables(c.parts, c.opts), { headers: c.headers, rows: c.rows }));

  const cells: [unknown, string][] = [["Running", "Running"], [3, "3"], [true, "true"], [null, ""], [undefined, ""], [{ a: 1 }, '{"a":1}']];
  for (const [cell, want] of cells) it(`prints the cell ${JSON.stringify(cell)} as ${JSON.stringify(want)}`, () => assert.equal(cellText(cell), want));

  it("says where nothing was found, as kubectl does", () => {
    assert.equal(noneFound("demo"), "No resources found in demo namespace.");
    assert.equal(noneFound(undefined), "No resources found");
  });
});

describe("the members' objects for -o json|yaml", () => {
  it("gives a list's items their apiVersion and kind", () => {
    assert.deepEqual(listItems({ apiVersion: "apps/v1", kind: "DeploymentList", items: [{ metadata: { name: "web" } }] }), [{ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" } }]);
  });
  it("is one List, each object annotated with its cluster, its own annotations kept, managedFields left out as kubectl does", () => {
    const merged = mergeObjects([
      { cluster: "member1", objects: [{ kind: "Pod", metadata: { name: "a", annotations: { x: "1" }, managedFields: [{ manager: "kubectl" }] } }] },
      { cluster: "member2", objects: [{ kind: "Pod", metadata: { name: "a" } }] },
    ]);
    assert.deepEqual(merged, {
      apiVersion: "v1",
      kind: "List",
      items: [
        { kind: "Pod", metadata: { name: "a", annotations: { x: "1", [CLUSTER_ANNOTATION]: "member1" } } },
        { kind: "Pod", metadata: { name: "a", annotations: { [CLUSTER_ANNOTATION]: "member2" } } },
      ],
    });
  });
});
