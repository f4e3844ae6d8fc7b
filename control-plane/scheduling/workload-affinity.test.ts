import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject, WorkloadAffinity } from "../../shared/api/types.ts";
import { type GroupPeers, workloadAffinityAllows } from "./workload-affinity.ts";

const template = (labels: Record<string, string>): KubeObject => ({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "a", labels }, spec: {} });
const peersOf =
  (groups: Record<string, string[]>): GroupPeers =>
  (key, value) =>
    new Set(groups[`${key}=${value}`] ?? []);
const clusters = ["m1", "m2", "m3"];

describe("workloadAffinityAllows", () => {
  const cases: { what: string; affinity?: WorkloadAffinity; labels?: Record<string, string>; groups?: Record<string, string[]>; held?: string[]; allowed: string[] }[] = [
    { what: "no workloadAffinity: every cluster", allowed: clusters },
    { what: "affinity, first of its group: anywhere (Karmada's bootstrap)", affinity: { affinity: { groupByLabelKey: "app.group" } }, labels: { "app.group": "fe" }, allowed: clusters },
    { what: "affinity: only where the group is", affinity: { affinity: { groupByLabelKey: "app.group" } }, labels: { "app.group": "fe" }, groups: { "app.group=fe": ["m2"] }, allowed: ["m2"] },
    { what: "affinity: another group's clusters do not count", affinity: { affinity: { groupByLabelKey: "app.group" } }, labels: { "app.group": "fe" }, groups: { "app.group=be": ["m2"] }, allowed: clusters },
    { what: "a template without the label is in no group", affinity: { affinity: { groupByLabelKey: "app.group" } }, labels: {}, groups: { "app.group=fe": ["m2"] }, allowed: clusters },
    { what: "antiAffinity: never where the group is", affinity: { antiAffinity: { groupByLabelKey: "shard" } }, labels: { shard: "1" }, groups: { "shard=1": ["m1", "m3"] }, allowed: ["m2"] },
    { what: "both: with one group, away from another", affinity: { affinity: { groupByLabelKey: "app" }, antiAffinity: { groupByLabelKey: "shard" } }, labels: { app: "x", shard: "1" }, groups: { "app=x": ["m1", "m2"], "shard=1": ["m1"] }, allowed: ["m2"] },
    { what: "a cluster it already runs in stays a candidate (never moved for another workload)", affinity: { antiAffinity: { groupByLabelKey: "shard" } }, labels: { shard: "1" }, groups: { "shard=1": ["m1"] }, held: ["m1"], allowed: clusters },
  ];
  for (const c of cases) {
    it(c.what, () => {
      const allows = workloadAffinityAllows(c.affinity, template(c.labels ?? {}), peersOf(c.groups ?? {}), new Set(c.held ?? []));
      assert.deepEqual(allows === undefined ? clusters : clusters.filter(allows), c.allowed);
    });
  }
});
