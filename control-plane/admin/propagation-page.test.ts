import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AggregatedStatusItem, ResourceBinding } from "../../shared/api/types.ts";
import { Health } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { afterOf, continueToken, propagationPage } from "./propagation-page.ts";

const binding = (targets: string[]): ResourceBinding =>
  ({ apiVersion: "work.karmada.io/v1alpha2", kind: "ResourceBinding", metadata: { name: "web-deployment", namespace: "default" }, spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, clusters: targets.map((name) => ({ name, replicas: 1 })) } }) as ResourceBinding;
const ok = (clusterName: string): AggregatedStatusItem => ({ clusterName, applied: true, health: "Healthy", reason: "" });

describe("propagationPage", () => {
  const targets = ["a", "b", "c", "d"];
  // Entries from memory: every cluster, and one still removing.
  const entries = [...targets.map(ok), { clusterName: "x", applied: false, reason: "WaitingForRemoval" as const, message: "waiting for the agent to remove it" }];
  const cases: { name: string; limit: number; token: string; want: string[]; remaining: number; more: boolean }[] = [
    { name: "no limit: every cluster, as before paging", limit: 0, token: "", want: ["a", "b", "c", "d", "x"], remaining: 0, more: false },
    { name: "the first page", limit: 2, token: "", want: ["a", "b"], remaining: 3, more: true },
    { name: "the page after a token", limit: 2, token: continueToken("b"), want: ["c", "d"], remaining: 1, more: true },
    { name: "the last page has no token", limit: 2, token: continueToken("d"), want: ["x"], remaining: 0, more: false },
    { name: "a limit over the count", limit: 10, token: "", want: ["a", "b", "c", "d", "x"], remaining: 0, more: false },
    { name: "a token after a cluster that left: the next names on", limit: 1, token: continueToken("bb"), want: ["c"], remaining: 2, more: true },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const page = propagationPage({ binding: binding(targets), entries, hashOf: (n) => `h-${n}`, limit: c.limit, continueToken: c.token });
      assert.ok(!(page instanceof Error));
      assert.deepEqual(
        [page.clusters.map((x) => x.cluster), page.remainingItemCount, page.continueToken !== ""],
        [c.want, c.remaining, c.more],
      );
    });
  }
  it("each cluster's detail from the entries, replicas from the spec, the hash from the Work", () => {
    const page = propagationPage({ binding: binding(["a"]), entries: [ok("a")], hashOf: () => "h1", limit: 0, continueToken: "" });
    assert.ok(!(page instanceof Error));
    assert.deepEqual(page.clusters, [{ cluster: "a", replicas: 1, reason: "", message: "", applied: true, health: Health.HEALTH_HEALTHY, contentHash: "h1" }]);
  });
  it("a token no answer gave is refused", () => {
    assert.ok(propagationPage({ binding: binding(["a"]), entries: [], hashOf: () => undefined, limit: 1, continueToken: "not-a-token" }) instanceof Error);
    assert.equal(afterOf(continueToken("member-1")), "member-1");
  });
});
