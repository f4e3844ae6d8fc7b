import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ManifestOutcome } from "../status/work-status.ts";
import { afterApply, RECHECK_SKIPPED_MS } from "./requeue-decision.ts";

const manifest = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "n" } };
const ok: ManifestOutcome = { manifest, applied: true, reason: "", message: "" };
const conflict: ManifestOutcome = { manifest, applied: false, reason: "AlreadyExists", message: "exists" };
const refused: ManifestOutcome = { manifest, applied: false, reason: "CreationFailed", message: "refused" };
const nsGoing = (ms: number): ManifestOutcome => ({ manifest, applied: false, reason: "CreationFailed", message: "ns terminating", waitingForNamespaceMs: ms });

describe("afterApply", () => {
  const cases: { name: string; outcomes: ManifestOutcome[]; want: ReturnType<typeof afterApply> }[] = [
    { name: "everything applied: done", outcomes: [ok, ok], want: { applyError: false } },
    { name: "nothing to apply: done", outcomes: [], want: { applyError: false } },
    { name: "a conflict left alone: looked at again, no error", outcomes: [ok, conflict], want: { applyError: false, requeueAfterMs: RECHECK_SKIPPED_MS } },
    { name: "a refusal: fails with the refused messages", outcomes: [ok, conflict, refused], want: { applyError: true, failure: "exists; refused" } },
    { name: "every failure waits for its namespace: the longest wait", outcomes: [nsGoing(2_000), nsGoing(5_000), ok], want: { applyError: true, requeueAfterMs: 5_000 } },
    { name: "a namespace wait beside a refusal: fails", outcomes: [nsGoing(2_000), refused], want: { applyError: true, failure: "ns terminating; refused" } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(afterApply(c.outcomes), c.want));
});
