import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FederatedResourceQuota } from "../../shared/api/quota.ts";
import { type QuotaKnowledge, quotaAbsenceIntent, quotaOfWorkKey, quotaWorkKey, quotaWorks } from "./quota-works.ts";

const frq = (assignments: { clusterName: string; hard: Record<string, string | number> }[], deleting = false): FederatedResourceQuota => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "FederatedResourceQuota",
  metadata: { name: "team", namespace: "shop", generation: 3, ...(deleting ? { deletionTimestamp: "2026-11-25T00:00:00Z" } : {}) },
  spec: { overall: { cpu: "10", pods: 20 }, staticAssignments: assignments },
});

describe("quotaWorks: each staticAssignments entry is a ResourceQuota named as the quota, in that cluster only", () => {
  it("one Work per assigned cluster, keyed by the FederatedResourceQuota, with that cluster's hard", () => {
    const works = quotaWorks(frq([{ clusterName: "member1", hard: { cpu: "4", pods: 10 } }, { clusterName: "member2", hard: { cpu: "6" } }]));
    assert.deepEqual([...works.keys()], ["member1", "member2"]);
    const w1 = works.get("member1");
    assert.equal(w1?.key, "flotilla.dev/v1alpha1/FederatedResourceQuota/shop/team");
    assert.equal(w1?.conflictResolution, "Abort");
    assert.equal(w1?.templateGeneration, 3);
    assert.deepEqual(JSON.parse(String(w1?.manifests[0])), { apiVersion: "v1", kind: "ResourceQuota", metadata: { name: "team", namespace: "shop", labels: { "flotilla.dev/federated-resource-quota": "team" } }, spec: { hard: { cpu: "4", pods: "10" } } });
    assert.notEqual(w1?.hash, works.get("member2")?.hash);
  });
  it("the same assignment hashes the same (every replica serves the same Work)", () => {
    assert.equal(quotaWorks(frq([{ clusterName: "m", hard: { cpu: "1" } }])).get("m")?.hash, quotaWorks(frq([{ clusterName: "m", hard: { cpu: "1" } }])).get("m")?.hash);
  });
  it("no assignments: no Works", () => assert.equal(quotaWorks(frq([])).size, 0));
  it("keys parse back to the quota; other Works' keys are not the quota's", () => {
    assert.deepEqual(quotaOfWorkKey(quotaWorkKey("shop", "team")), { namespace: "shop", name: "team" });
    assert.equal(quotaOfWorkKey("apps/v1/Deployment/shop/team"), undefined);
  });
});

describe("quotaAbsenceIntent: a member's ResourceQuota goes only on the user's intent (DESIGN §11)", () => {
  const present = (q: FederatedResourceQuota | undefined): QuotaKnowledge => ({ known: true, frq: q });
  const cases: { name: string; leaving?: boolean; quota: QuotaKnowledge; want: string | undefined }[] = [
    { name: "fault: the informer has not listed (a control plane just started, the CRD's list refused): kept", quota: { known: false }, want: undefined },
    { name: "fault: not listed, even for a leaving cluster: kept until it is known", leaving: true, quota: { known: false }, want: undefined },
    { name: "the assignment is still there (the store lacks it for another reason): kept", quota: present(frq([{ clusterName: "member1", hard: { cpu: "1" } }])), want: undefined },
    { name: "the assignment was removed", quota: present(frq([{ clusterName: "member2", hard: { cpu: "1" } }])), want: "PlacementChanged" },
    { name: "the quota was deleted", quota: present(undefined), want: "TemplateDeleted" },
    { name: "the quota is being deleted", quota: present(frq([{ clusterName: "member1", hard: { cpu: "1" } }], true)), want: "TemplateDeleted" },
    { name: "the cluster is unjoined", leaving: true, quota: present(frq([{ clusterName: "member1", hard: { cpu: "1" } }])), want: "ClusterUnjoined" },
  ];
  for (const c of cases) it(c.name, () => assert.equal(quotaAbsenceIntent({ name: "member1", leaving: c.leaving === true }, c.quota)?.reason, c.want));
});
