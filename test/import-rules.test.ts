import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { AGENT_FOLDER_IMPORTS, COMMON_IMPORTS, FOLDER_IMPORTS, importsOf, importViolation, isPureShared, isTestCode, PURE_FOLDERS, PURE_SHARED, PURE_SHARED_FOLDERS, resolveImport } from "./import-rules.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

describe("importViolation", () => {
  const cases: { name: string; from: string; specifier: string; refused: boolean }[] = [
    { name: "a pure folder imports the REST client", from: "control-plane/scheduling/schedule.ts", specifier: "../../shared/kube-rest.ts", refused: true },
    { name: "a pure folder imports the Kubernetes client package", from: "control-plane/rendering/render.ts", specifier: "@kubernetes/client-node", refused: true },
    { name: "a pure folder imports a filesystem builtin", from: "control-plane/scheduling/placement.ts", specifier: "node:fs/promises", refused: true },
    { name: "a pure folder imports the caches", from: "control-plane/scheduling/schedule.ts", specifier: "../caches/caches.ts", refused: true },
    { name: "a pure folder imports a controller folder", from: "control-plane/rendering/render-works.ts", specifier: "../detector/binding-controller.ts", refused: true },
    { name: "a pure folder imports pure shared code", from: "control-plane/scheduling/placement.ts", specifier: "../../shared/label-selector.ts", refused: false },
    { name: "rendering imports scheduling", from: "control-plane/rendering/overrides.ts", specifier: "../scheduling/placement.ts", refused: false },
    { name: "rendering imports fast-json-patch", from: "control-plane/rendering/overriders.ts", specifier: "fast-json-patch", refused: false },
    { name: "scheduling imports rendering (the layering runs the other way)", from: "control-plane/scheduling/schedule.ts", specifier: "../rendering/render.ts", refused: true },
    { name: "the hub imports a controller", from: "control-plane/hub/hub.ts", specifier: "../status/status-controller.ts", refused: true },
    { name: "the hub imports the Work cache controller", from: "control-plane/hub/hub.ts", specifier: "../works/work-cache.ts", refused: true },
    { name: "the hub imports the Work store", from: "control-plane/hub/hub.ts", specifier: "../works/work-store.ts", refused: false },
    { name: "the hub imports the clusters' registration", from: "control-plane/hub/hub.ts", specifier: "../clusters/registration.ts", refused: true },
    { name: "a folder imports the assembly", from: "control-plane/status/index.ts", specifier: "../control-plane.ts", refused: true },
    { name: "main imports the assembly", from: "control-plane/main.ts", specifier: "./control-plane.ts", refused: false },
    { name: "a folder imports a top-level module that is not shared", from: "control-plane/detector/index.ts", specifier: "../binding-lookup.ts", refused: true },
    { name: "a folder imports leader election", from: "control-plane/detector/index.ts", specifier: "../leadership/leader-election.ts", refused: true },
    { name: "a folder imports the CRD installation", from: "control-plane/webhook/index.ts", specifier: "../crd-install/crds.ts", refused: true },
    { name: "the assembly imports leader election", from: "control-plane/control-plane.ts", specifier: "./leadership/lease-thread.ts", refused: false },
    { name: "the assembly imports the CRD installation", from: "control-plane/control-plane.ts", specifier: "./crd-install/crds.ts", refused: false },
    { name: "the context imports the caches", from: "control-plane/context.ts", specifier: "./caches/caches.ts", refused: false },
    { name: "a controller folder imports the caches", from: "control-plane/detector/binding-controller.ts", specifier: "../caches/caches.ts", refused: false },
    { name: "a folder not listed for it imports the caches (every folder may)", from: "control-plane/quota/quota-sync.ts", specifier: "../caches/caches.ts", refused: false },
    { name: "a folder imports the binding index behind the caches", from: "control-plane/quota/quota-sync.ts", specifier: "../caches/binding-index.ts", refused: true },
    { name: "the caches import a pure scheduling rule", from: "control-plane/caches/caches.ts", specifier: "../scheduling/binding-spec.ts", refused: false },
    { name: "the caches import a folder that imports them", from: "control-plane/caches/caches.ts", specifier: "../detector/template-informers.ts", refused: true },
    { name: "the caches import leader election", from: "control-plane/caches/caches.ts", specifier: "../leadership/leader-election.ts", refused: true },
    { name: "leader election imports a scheduling rule", from: "control-plane/leadership/leader-election.ts", specifier: "../scheduling/placement.ts", refused: true },
    { name: "the CRD installation imports a controller", from: "control-plane/crd-install/crds.ts", specifier: "../webhook/index.ts", refused: true },
    { name: "the autoscaling controller imports the pure autoscaling folder", from: "control-plane/autoscaling-controller/federated-hpa-controller.ts", specifier: "../autoscaling/federated-hpa-run.ts", refused: false },
    { name: "the autoscaling controller imports the Event recorder", from: "control-plane/autoscaling-controller/cron-controller.ts", specifier: "../status/event-recorder.ts", refused: false },
    { name: "the autoscaling controller imports the hub", from: "control-plane/autoscaling-controller/index.ts", specifier: "../hub/hub.ts", refused: true },
    { name: "the pure autoscaling folder imports its controller", from: "control-plane/autoscaling/federated-hpa-run.ts", specifier: "../autoscaling-controller/scale-target.ts", refused: true },
    { name: "a folder imports the context", from: "control-plane/works/index.ts", specifier: "../context.ts", refused: false },
    { name: "control-plane imports agent", from: "control-plane/hub/hub.ts", specifier: "../../agent/apply.ts", refused: true },
    { name: "agent imports control-plane", from: "agent/agent.ts", specifier: "../control-plane/rendering/render.ts", refused: true },
    { name: "shared imports control-plane", from: "shared/work-key.ts", specifier: "../control-plane/caches/caches.ts", refused: true },
    { name: "admin imports status", from: "control-plane/admin/admin.ts", specifier: "../status/status-store.ts", refused: false },
    { name: "a pure folder's test imports the test runner", from: "control-plane/scheduling/schedule.test.ts", specifier: "node:test", refused: false },
    { name: "a test in control-plane imports agent", from: "control-plane/hub/hub.test.ts", specifier: "../../agent/apply.ts", refused: true },
    { name: "a pure folder's test fixtures import the test runner", from: "control-plane/rendering/overrides.fixtures.ts", specifier: "node:test", refused: false },
    { name: "the autoscaling folder is pure: no REST client", from: "control-plane/autoscaling/desired-replicas.ts", specifier: "../../shared/kube-rest.ts", refused: true },
    { name: "the autoscaling folder imports pure shared code", from: "control-plane/autoscaling/replica-calculator.ts", specifier: "../../shared/quantity.ts", refused: false },
    { name: "a test outside imports anything", from: "test/bench/schedule-render.ts", specifier: "../../control-plane/works/work-store.ts", refused: false },
  ];
  itJudges(cases);

  it("the folder table is a layering: no folder may import one that may import it", () => {
    // Every folder but the pure ones (which import only pure code) may import the common folders too.
    const common = (from: string): readonly string[] =>
      (PURE_FOLDERS as readonly string[]).includes(from) || COMMON_IMPORTS.some((m) => m.startsWith(`${from}/`)) ? [] : COMMON_IMPORTS;
    const table = Object.fromEntries(Object.entries(FOLDER_IMPORTS).map(([from, to]) => [from, [...to, ...common(from)]]));
    for (const folder of Object.keys(table)) assert.ok(!reachOf(table, folder).has(folder), `${folder} reaches itself`);
  });
});

describe("importsOf", () => {
  it("finds static, multi-line, type-only, re-exported, side-effect and dynamic imports", () => {
    const source = [
      'import { a } from "./a.ts";',
      "import type {",
      "  B,",
      '} from "../b.ts";',
      'export { c } from "./c.ts";',
      'import "./side.ts";',
      'const d = await import("./d.ts");',
      'export function e() { return "not from here"; }',
    ].join("\n");
    assert.deepEqual(importsOf(source).sort(), ["../b.ts", "./a.ts", "./c.ts", "./d.ts", "./side.ts"]);
  });
});

describe("the repository follows the import rules", () => {
  it("no file of control-plane/, agent/ or shared/ breaks them", async () => {
    const files: string[] = [];
    for (const side of ["control-plane", "agent", "shared"]) {
      for (const entry of await readdir(join(root, side), { recursive: true, withFileTypes: true })) {
        const path = relative(root, join(entry.parentPath, entry.name));
        if (entry.isFile() && path.endsWith(".ts") && !path.startsWith("shared/gen/")) files.push(path);
      }
    }
    assert.ok(files.length > 100, `read ${files.length} files`);
    const broken: string[] = [];
    for (const file of files) {
      for (const specifier of importsOf(await readFile(join(root, file), "utf8"))) {
        const why = importViolation(file, resolveImport(file, specifier));
        if (why !== undefined) broken.push(`${file} imports ${specifier}: ${why}`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it("the shared modules pure folders use are pure themselves", async () => {
    const folderFiles = (
      await Promise.all(PURE_SHARED_FOLDERS.map(async (f) => (await readdir(join(root, f), { recursive: true })).map((n) => `${f}${n}`)))
    ).flat().filter((f) => f.endsWith(".ts") && !isTestCode(f.split("/").pop() ?? ""));
    for (const file of [...PURE_SHARED, ...folderFiles]) {
      const imports = importsOf(await readFile(join(root, file), "utf8")).map((s) => resolveImport(file, s));
      for (const to of imports) assert.ok(isPureShared(to) || to === "node:crypto", `${file} imports ${to}`);
    }
  });

  for (const side of ["control-plane", "agent"]) {
    it(`${side}/ has at most 8 sources at its top: the entry, the assembly and little else`, async () => {
      const top = (await readdir(join(root, side), { withFileTypes: true })).filter((e) => e.isFile() && e.name.endsWith(".ts") && !isTestCode(e.name)).map((e) => e.name);
      assert.ok(top.includes("main.ts") && top.includes(`${side}.ts`), top.join(", "));
      assert.ok(top.length <= 8, `${top.length} sources at the top of ${side}/ (at most 8; a concern goes in a folder): ${top.join(", ")}`);
    });

    it(`every folder in ${side}/ has a README.md`, async () => {
      const folders = await foldersOf(side);
      assert.ok(folders.length > 8, `read ${folders.length} folders`);
      const without: string[] = [];
      for (const folder of folders) if (!(await readdir(join(root, folder))).includes("README.md")) without.push(folder);
      assert.deepEqual(without, []);
    });

    it(`no source file in ${side}/ is longer than 300 lines`, async () => {
      const long: string[] = [];
      for (const entry of await readdir(join(root, side), { recursive: true, withFileTypes: true })) {
        if (!entry.isFile() || !entry.name.endsWith(".ts") || isTestCode(entry.name)) continue;
        const lines = (await readFile(join(entry.parentPath, entry.name), "utf8")).split("\n").length - 1;
        if (lines > 300) long.push(`${relative(root, join(entry.parentPath, entry.name))}: ${lines} lines`);
      }
      assert.deepEqual(long, []);
    });
  }
});

describe("agent/ by concern (issue 38)", () => {
  const cases: { name: string; from: string; specifier: string; refused: boolean }[] = [
    { name: "the judge imports the REST client", from: "agent/judge/deletion-judge.ts", specifier: "../../shared/kube-rest.ts", refused: true },
    { name: "the judge imports the applied store", from: "agent/judge/prune-decision.ts", specifier: "../applied/applied-store.ts", refused: true },
    { name: "the judge imports pure shared code", from: "agent/judge/orphans.ts", specifier: "../../shared/work-key.ts", refused: false },
    { name: "the judge imports node:crypto", from: "agent/judge/owner.ts", specifier: "node:crypto", refused: false },
    { name: "the judge imports a logger", from: "agent/judge/owner.ts", specifier: "pino", refused: true },
    { name: "applied/ asks the judge", from: "agent/applied/member-deletion.ts", specifier: "../judge/deletion-judge.ts", refused: false },
    { name: "applied/ imports apply/ (the layering runs the other way)", from: "agent/applied/member-deletion.ts", specifier: "../apply/manifest-apply.ts", refused: true },
    { name: "apply/ imports the deleter", from: "agent/apply/manifest-apply.ts", specifier: "../applied/member-deletion.ts", refused: true },
    { name: "apply/ records kinds in the store", from: "agent/apply/manifest-apply.ts", specifier: "../applied/applied-store.ts", refused: false },
    { name: "work/ runs apply, applied, judge and status", from: "agent/work/work-runner.ts", specifier: "../apply/manifest-apply.ts", refused: false },
    { name: "status/ imports work/", from: "agent/status/work-status.ts", specifier: "../work/work-runner.ts", refused: true },
    { name: "hub/ imports work/", from: "agent/hub/hub-connection.ts", specifier: "../work/work-runner.ts", refused: true },
    { name: "a folder imports the assembly", from: "agent/work/work-runner.ts", specifier: "../agent.ts", refused: true },
    { name: "the assembly imports a folder", from: "agent/agent.ts", specifier: "./work/work-runner.ts", refused: false },
    { name: "main imports the assembly", from: "agent/main.ts", specifier: "./agent.ts", refused: false },
    { name: "a test of the judge imports anything", from: "agent/judge/owner.test.ts", specifier: "../apply/apply-decision.ts", refused: false },
  ];
  itJudges(cases);

  it("the agent's folder table is a layering, and names only folders that exist", async () => {
    const folders = (await readdir(join(root, "agent"), { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
    assert.deepEqual(Object.keys(AGENT_FOLDER_IMPORTS).sort(), folders.sort());
    for (const folder of folders) assert.ok(!reachOf(AGENT_FOLDER_IMPORTS, folder).has(folder), `${folder} reaches itself`);
  });
});

/** One test per case: may `from` import what `specifier` names? */
function itJudges(cases: readonly { name: string; from: string; specifier: string; refused: boolean }[]): void {
  for (const c of cases) {
    it(`${c.name}: ${c.refused ? "refused" : "allowed"}`, () => {
      const why = importViolation(c.from, resolveImport(c.from, c.specifier));
      if (c.refused) assert.ok(why !== undefined && why.length > 0, "expected a reason");
      else assert.equal(why, undefined);
    });
  }
}

/** Every folder a folder of the table reaches through what it may import. */
function reachOf(table: Readonly<Record<string, readonly string[]>>, from: string, seen = new Set<string>()): Set<string> {
  for (const to of table[from] ?? []) {
    const folder = to.split("/")[0] ?? "";
    if (!seen.has(folder)) reachOf(table, folder, seen.add(folder));
  }
  return seen;
}

/** The side itself and every folder under it: not node_modules, nor the generated folders .gitignore lists (the dashboard's web-dist/). */
async function foldersOf(side: string): Promise<string[]> {
  const ignored = (await readFile(join(root, ".gitignore"), "utf8"))
    .split("\n")
    .map((l) => l.trim().replace(/\/$/, ""))
    .filter((l) => l.startsWith(`${side}/`));
  const skipped = (path: string) => path.split("/").includes("node_modules") || ignored.some((i) => path === i || path.startsWith(`${i}/`));
  const folders = [side];
  for (const entry of await readdir(join(root, side), { recursive: true, withFileTypes: true })) {
    const path = relative(root, join(entry.parentPath, entry.name));
    if (entry.isDirectory() && !skipped(path)) folders.push(path);
  }
  return folders;
}
