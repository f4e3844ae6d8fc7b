import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LABELS, type KubeObject } from "../../shared/api/types.ts";
import { decideApply } from "../apply/apply-decision.ts";
import { isOurs } from "./deletion-judge.ts";
import { adoptOrphans } from "./orphans.ts";
import { foreign, OWNER_ANNOTATION, ownerOf } from "./owner.ts";
import { workKeyLabelValue, WORK_KEY_ANNOTATION } from "../../shared/work-key.ts";

const KEY = "core/v1/ConfigMap/shop/conf";
const LABEL = workKeyLabelValue(KEY);
const ours = ownerOf("-----BEGIN CERTIFICATE-----\nfleet-a\n-----END CERTIFICATE-----\n", "member1");
const otherFleet = ownerOf("-----BEGIN CERTIFICATE-----\nfleet-b\n-----END CERTIFICATE-----\n", "member1");
const otherCluster = ownerOf("-----BEGIN CERTIFICATE-----\nfleet-a\n-----END CERTIFICATE-----\n", "member2");
const object = (owner?: string): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "conf", namespace: "shop", labels: { [LABELS.work]: LABEL }, annotations: { [WORK_KEY_ANNOTATION]: KEY, ...(owner ? { [OWNER_ANNOTATION]: owner } : {}) } },
});

describe("owners: two fleets, or two agents, sharing one member never take each other's objects", () => {
  it("an owner names the fleet (by its CA) and the cluster", () => {
    assert.match(ours, /^[0-9a-f]{16}\/member1$/);
    assert.notEqual(ours, otherFleet);
    assert.notEqual(ours, otherCluster);
    assert.equal(ownerOf(Buffer.from("-----BEGIN CERTIFICATE-----\nfleet-a\n-----END CERTIFICATE-----\n"), "member1"), ours, "the same CA read as bytes");
  });
  const cases: { name: string; owner?: string; foreign: boolean }[] = [
    { name: "ours", owner: ours, foreign: false },
    { name: "from before owners (no annotation): ours, as before", foreign: false },
    { name: "another fleet's", owner: otherFleet, foreign: true },
    { name: "another cluster's agent's", owner: otherCluster, foreign: true },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.foreign ? "never applied over, deleted or adopted" : "applied, deleted and adopted as ours"}`, () => {
      const o = object(c.owner);
      assert.equal(foreign(o, ours), c.foreign);
      assert.equal(decideApply(o, LABEL, "Abort", ours).action, c.foreign ? "skip" : "apply");
      assert.equal(isOurs(o, LABEL, ours), !c.foreign);
      assert.equal(adoptOrphans(new Map(), [o], ours).length, c.foreign ? 0 : 1);
    });
  }
  it("a member that registers again (a new Cluster uid and certificate, the same fleet and name) keeps the owner: its objects are applied over in place and adopted", () => {
    // The owner names no Cluster uid and no certificate, so a forced unjoin and a new registration
    // (issue 20 item 4) find the objects the earlier registration applied still ours.
    const again = ownerOf("-----BEGIN CERTIFICATE-----\nfleet-a\n-----END CERTIFICATE-----\n", "member1");
    const earlier = object(ours);
    assert.equal(again, ours);
    assert.equal(decideApply(earlier, LABEL, "Abort", again).action, "apply");
    assert.equal(adoptOrphans(new Map(), [earlier], again).length, 1);
    assert.equal(isOurs(earlier, LABEL, again), true);
  });
  it("another owner's object is taken over only with Overwrite, and the refusal names the owner", () => {
    const d = decideApply(object(otherFleet), LABEL, "Abort", ours);
    assert.equal(d.action, "skip");
    if (d.action === "skip") assert.match(d.message, new RegExp(otherFleet));
    assert.equal(decideApply(object(otherFleet), LABEL, "Overwrite", ours).action, "apply");
  });
});
