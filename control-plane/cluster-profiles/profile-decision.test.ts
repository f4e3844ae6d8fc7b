import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster } from "../../shared/api/types.ts";
import { type ClusterProfile, desiredProfile, slimProfile } from "./cluster-profile.ts";
import { ACCESS, cluster, NOW, NS, profile } from "./cluster-profile.fixtures.ts";
import { decideProfile } from "./profile-decision.ts";

/** Flotilla's profile as it would be served after writing what it wants for c (plus another writer's entries). */
const upToDate = (c: Cluster, o: { access?: boolean; others?: boolean; displayName?: string } = {}): ClusterProfile => {
  const status = desiredProfile(c, { namespace: NS, ...(o.access ? { access: ACCESS } : {}), now: NOW }).status;
  return profile({
    ...(o.displayName === undefined ? {} : { displayName: o.displayName }),
    status: {
      ...status,
      ...(o.others
        ? {
            properties: [...status.properties, { name: "gpu.example.com/count", value: "8" }],
            conditions: [...status.conditions, { type: "example.com/Audited", status: "True", reason: "Done", message: "", lastTransitionTime: NOW }],
            accessProviders: [...status.accessProviders, { name: "secretreader", cluster: { server: "https://direct:6443" } }],
          }
        : {}),
    },
  });
};

describe("decideProfile: write, delete or leave one name's ClusterProfile", () => {
  const cases: { name: string; cluster?: Cluster; served?: ClusterProfile; access?: boolean; want: string }[] = [
    { name: "a Cluster without a profile: create", cluster: cluster(), want: "create" },
    { name: "neither: nothing", want: "none" },
    { name: "Flotilla's profile, up to date: nothing", cluster: cluster(), served: upToDate(cluster()), want: "none" },
    { name: "up to date beside another writer's property, condition and provider: nothing", cluster: cluster(), served: upToDate(cluster(), { others: true }), want: "none" },
    { name: "the Cluster's version changed: status", cluster: cluster({ version: "v1.36.0" }), served: upToDate(cluster()), want: "status" },
    { name: "the Cluster went NotReady: status", cluster: cluster({ ready: { type: "Ready", status: "False", reason: "ClusterNotReachable", message: "x", lastTransitionTime: NOW } }), served: upToDate(cluster()), want: "status" },
    { name: "the Cluster got a region: status", cluster: cluster({ region: "eu" }), served: upToDate(cluster()), want: "status" },
    { name: "the Cluster lost its region: status (its property goes)", cluster: cluster(), served: upToDate(cluster({ region: "eu" })), want: "status" },
    { name: "the member API came: status (the provider is added)", cluster: cluster(), served: upToDate(cluster()), access: true, want: "status" },
    { name: "the member API went: status (the provider goes)", cluster: cluster(), served: upToDate(cluster(), { access: true }), want: "status" },
    { name: "a person changed displayName: theirs to keep (KEP-4322), nothing", cluster: cluster(), served: upToDate(cluster(), { displayName: "Paris" }), want: "none" },
    { name: "Flotilla's profile being deleted, Cluster there: nothing until it is gone", cluster: cluster(), served: profile({ deleting: true }), want: "none" },
    { name: "Flotilla's profile, its Cluster gone: delete", served: upToDate(cluster()), want: "delete" },
    { name: "Flotilla's profile being deleted, Cluster gone: nothing more", served: profile({ deleting: true }), want: "none" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = decideProfile(c.cluster, c.served, { namespace: NS, ...(c.access ? { access: ACCESS } : {}), now: NOW });
      assert.equal(d.action, c.want, d.reason);
      // The controller's cache holds the slim form: the same answer from it.
      const slim = decideProfile(c.cluster, c.served && slimProfile(c.served), { namespace: NS, ...(c.access ? { access: ACCESS } : {}), now: NOW });
      assert.equal(slim.action, c.want, `slim: ${slim.reason}`);
    });
  }

  it("a changed CA is a change, also in the slim form (which holds its digest)", () => {
    const served = slimProfile(upToDate(cluster(), { access: true }));
    assert.match(served.status?.accessProviders?.[0]?.cluster?.["certificate-authority-data"] ?? "", /^digest:[0-9a-f]{32}$/);
    const d = decideProfile(cluster(), served, { namespace: NS, access: { ...ACCESS, caData: Buffer.from("another CA").toString("base64") }, now: NOW });
    assert.equal(d.action, "status");
    if (d.action === "status") assert.equal(d.desired.status.accessProviders[0]?.cluster?.["certificate-authority-data"], Buffer.from("another CA").toString("base64"), "the real CA is written");
  });

  it("deletes by the served uid and resourceVersion: that object only", () => {
    const d = decideProfile(undefined, profile(), { namespace: NS, now: NOW });
    assert.deepEqual(d.action === "delete" ? d.target : undefined, { uid: "profile-uid", resourceVersion: "41" });
  });

  it("writes the status it compared: the served condition times kept", () => {
    const served = upToDate(cluster());
    const d = decideProfile(cluster({ version: "v1.36.0" }), served, { namespace: NS, now: "2027-01-01T00:00:00Z" });
    assert.equal(d.action, "status");
    if (d.action === "status") assert.deepEqual(d.desired.status.conditions, served.status?.conditions);
  });
});

describe("decideProfile: never a profile another cluster manager manages", () => {
  const others: { name: string; served: ClusterProfile }[] = [
    { name: "Open Cluster Management's (label and manager)", served: profile({ label: "open-cluster-management", manager: "open-cluster-management" }) },
    { name: "labelled flotilla but another manager in the immutable spec", served: profile({ manager: "fleet" }) },
    { name: "manager flotilla but another label", served: profile({ label: "fleet" }) },
    { name: "no label at all (a person's)", served: profile({ label: null }) },
    { name: "the label's value in another case", served: profile({ label: "Flotilla" }) },
  ];
  const situations: { name: string; cluster?: Cluster; clusterWaits: boolean }[] = [
    { name: "its Cluster there", cluster: cluster(), clusterWaits: true },
    { name: "its Cluster there, out of date", cluster: cluster({ version: "v9.9.9", region: "eu" }), clusterWaits: true },
    { name: "no Cluster of that name (never deleted)", clusterWaits: false },
  ];
  for (const o of others) {
    for (const s of situations) {
      it(`${o.name}, ${s.name}: left as it is`, () => {
        const d = decideProfile(s.cluster, o.served, { namespace: NS, access: ACCESS, now: NOW });
        assert.equal(d.action, "foreign", d.reason);
        if (d.action === "foreign") assert.equal(d.clusterWaits, s.clusterWaits);
      });
    }
  }
  it("says whose profile holds the name", () => {
    const d = decideProfile(cluster(), profile({ label: "open-cluster-management", manager: "open-cluster-management" }), { namespace: NS, now: NOW });
    assert.match(d.reason, /flotilla-system\/member1 is cluster manager open-cluster-management's/);
  });
});
