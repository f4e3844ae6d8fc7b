import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PlanResponse } from "../../shared/gen/flotilla/v1alpha1/admin.ts";
import { planDiff, planRows, planSummary } from "./plan-view.ts";

const deploy = (replicas: number, image: string) =>
  Buffer.from(JSON.stringify({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "adm" }, spec: { replicas, template: { spec: { containers: [{ name: "c", image }] } } } }));
/** The Work now as the informer holds it: the same object, keys in another order. */
const reordered = (replicas: number, image: string) =>
  Buffer.from(JSON.stringify({ spec: { template: { spec: { containers: [{ image, name: "c" }] } }, replicas }, metadata: { namespace: "adm", name: "web" }, kind: "Deployment", apiVersion: "apps/v1" }));
const work = (replicas: number | undefined, hash: string, image = "nginx:1.25", error = "") => ({
  ...(replicas === undefined ? {} : { replicas }),
  contentHash: hash,
  manifests: error ? [] : [deploy(replicas ?? 1, image)],
  error,
});
const ref = (kind: string, name: string, namespace = "adm") => ({ apiVersion: kind === "Deployment" ? "apps/v1" : "v1", kind, namespace, name });

const res: PlanResponse = {
  templates: [
    {
      template: ref("Deployment", "web"),
      policy: "PropagationPolicy adm/web",
      scheduleMessage: "2 replicas fit in no cluster",
      unplaced: 2,
      clusters: [
        { cluster: "member1", now: { replicas: 3, contentHash: "aaaaaaaaaaaaaaaa", manifests: [reordered(3, "nginx:1.25")], error: "" }, planned: work(4, "bbbbbbbbbbbbbbbb", "nginx:1.26"), change: "changed" },
        { cluster: "member2", now: undefined, planned: work(2, "cccccccccccccccc"), change: "added" },
        { cluster: "member3", now: work(1, "dddddddddddddddd"), planned: undefined, change: "removed" },
        { cluster: "member4", now: work(undefined, "eeeeeeeeeeee"), planned: work(undefined, "eeeeeeeeeeee"), change: "unchanged" },
        { cluster: "member5", now: work(2, "ffffffffffff"), planned: work(2, "", "", "ApplyOverridesFailed: /spec/x: no such path"), change: "failed" },
      ],
    },
    { template: ref("ConfigMap", "lonely"), policy: "", scheduleMessage: "", unplaced: 0, clusters: [] },
  ],
  notes: ["Deployment new/x not checked by the control cluster: namespace \"new\" does not exist there yet"],
};

describe("plan view", () => {
  it("has a row per template and cluster: change, replicas and hash now → after, and an override's error", () => {
    assert.deepEqual(planRows(res), [
      ["Deployment adm/web", "member1", "changed", "3 → 4", "aaaaaaaaaaaa → bbbbbbbbbbbb", "-"],
      ["Deployment adm/web", "member2", "added", "- → 2", "- → cccccccccccc", "-"],
      ["Deployment adm/web", "member3", "removed", "1 → -", "dddddddddddd → -", "-"],
      ["Deployment adm/web", "member4", "unchanged", "n/a", "eeeeeeeeeeee", "-"],
      ["Deployment adm/web", "member5", "failed", "2", "ffffffffffff → -", "ApplyOverridesFailed: /spec/x: no such path"],
      ["ConfigMap adm/lonely", "-", "unselected", "-", "-", "-"],
    ]);
  });

  it("names each template's policy, its scheduling message and the notes", () => {
    assert.deepEqual(planSummary(res), [
      "# Deployment adm/web: PropagationPolicy adm/web",
      "#   scheduling: 2 replicas fit in no cluster",
      "# ConfigMap adm/lonely: no propagation policy selects it",
      '# note: Deployment new/x not checked by the control cluster: namespace "new" does not exist there yet',
    ]);
  });

  it("diffs the Works that change, says what a removal deletes, and skips the rest", () => {
    const text = planDiff(res);
    assert.match(text, /^# Deployment adm\/web on member1: changed\n--- now\/Deployment\/adm\/web\n\+\+\+ planned\/Deployment\/adm\/web\n/m);
    assert.match(text, /^- {10}image: nginx:1\.25$/m);
    assert.match(text, /^\+ {10}image: nginx:1\.26$/m);
    assert.match(text, /^- {2}replicas: 3$/m);
    assert.match(text, /^\+ {2}replicas: 4$/m);
    assert.equal(text.split("# Deployment adm/web on member2")[0]?.match(/^[-+](?![-+])/gm)?.length, 4, "only replicas and image differ, not the order of keys");
    assert.match(text, /^# Deployment adm\/web on member2: added\n--- \/dev\/null\n\+\+\+ planned\/Deployment\/adm\/web\n/m);
    assert.match(text, /^# Deployment adm\/web on member3: removed; its agent deletes Deployment adm\/web$/m);
    assert.doesNotMatch(text, /member4|member5|lonely/);
  });
});
