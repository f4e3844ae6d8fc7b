import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { reasonsInSource, reasonsInSources } from "./reason-discovery.ts";
import { REASON_PATTERNS, REASON_SENTENCES, reasonSentence } from "./reasons.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

async function sources(): Promise<{ path: string; text: string }[]> {
  const out: { path: string; text: string }[] = [];
  for (const side of ["control-plane", "agent", "shared"]) {
    for (const e of await readdir(join(root, side), { recursive: true, withFileTypes: true })) {
      const path = relative(root, join(e.parentPath, e.name));
      if (!e.isFile() || !path.endsWith(".ts") || path.startsWith("shared/gen/") || path.endsWith(".test.ts") || path.endsWith(".fixtures.ts")) continue;
      out.push({ path, text: await readFile(join(root, path), "utf8") });
    }
  }
  return out;
}

describe("reason discovery", () => {
  it("finds literals, ternaries, variables, defaults, constants, unions and prefixes, and not comparisons or comments", () => {
    const source = [
      'const c = { type: "Ready", status: "True", reason: "ClusterReady", message: "ok" };',
      'const reason = n === 0 ? "NoClusterFit" : "ReplicasUnplaced";',
      'return { applied: false, reason: live === undefined ? "CreationFailed" : "UpdateFailed", message: m };',
      'function del(key: string, reason = "Unspecified") {}',
      'if (item.reason === "ReadOnlyWord" || x.reason !== "OtherReadWord") return;',
      'export const HELD = "DeletionHeld";',
      "status = { ...status, reason: HELD, message };",
      'export type DeletionReason = "TemplateDeleted" | "PlacementChanged";',
      "export type RolloutPhase =\n  | \"Progressing\"\n  /** a comment \"NotAReason\" */\n  | \"Paused\";",
      "return { reason: `Rollout${next.phase}`, message };",
      '// reason: "CommentedOut"',
      "interface X { reason?: string; }",
      'log.info({ reason: "acquire" }, "lease");',
    ].join("\n");
    const one = reasonsInSource(source);
    assert.deepEqual(one.reasons, ["ClusterReady", "CreationFailed", "NoClusterFit", "Paused", "PlacementChanged", "Progressing", "ReplicasUnplaced", "TemplateDeleted", "Unspecified", "UpdateFailed"]);
    assert.deepEqual(one.constantsUsed, ["HELD"]);
    assert.deepEqual(one.patterns, ["Rollout*"]);
    const all = reasonsInSources([{ path: "a.ts", text: source }]);
    assert.ok(all.reasons.has("DeletionHeld"), "a constant given as a reason is resolved");
    assert.deepEqual(all.unresolved, []);
  });

  it("reports a constant given as a reason that no source defines", () => {
    assert.deepEqual(reasonsInSources([{ path: "a.ts", text: "x = { reason: SOMEWHERE_ELSE };" }]).unresolved, ["a.ts: SOMEWHERE_ELSE"]);
  });

  it("a reason written without a sentence is caught: the check fails on a sample that adds one", () => {
    const sample = [{ path: "new.ts", text: 'return { type: "Ready", status: "False", reason: "BrandNewReason", message };' }];
    const missing = [...reasonsInSources(sample).reasons.keys()].filter((r) => reasonSentence(r) === undefined);
    assert.deepEqual(missing, ["BrandNewReason"]);
  });
});

describe("every reason Flotilla writes has an explanation", () => {
  it("discovers the reasons in control-plane/, agent/ and shared/ and finds a sentence for each", async () => {
    const found = reasonsInSources(await sources());
    assert.deepEqual(found.unresolved, [], "a constant given as a reason must be defined as a string literal");
    // The discovery must see the known families, or it has gone blind.
    for (const r of ["NoPolicyClaims", "AlreadyExists", "ClusterNotReachable", "DeletionHeld", "WaitingForApproval", "RecordsPublished", "ScaleUpLimit", "TemplateDeleted"]) assert.ok(found.reasons.has(r), `discovery misses ${r}`);
    const missing = [...found.reasons.entries()].filter(([r]) => reasonSentence(r) === undefined).map(([r, where]) => `${r} (${[...new Set(where)].join(", ")})`);
    assert.deepEqual(missing, [], "add a sentence to control-plane/explain/reasons.ts");
    const missingPatterns = [...found.patterns.keys()].filter((p) => REASON_PATTERNS[p] === undefined);
    assert.deepEqual(missingPatterns, [], "add a pattern to REASON_PATTERNS");
  });

  it("the map holds no sentence for a reason nobody writes any more", async () => {
    const found = reasonsInSources(await sources());
    assert.deepEqual(Object.keys(REASON_SENTENCES).filter((r) => !found.reasons.has(r)), []);
  });

  it("a prefixed reason reads its pattern's sentence", () => {
    assert.equal(reasonSentence("RolloutPaused"), REASON_PATTERNS["Rollout*"]);
    assert.equal(reasonSentence("Rollout"), undefined);
  });
});
