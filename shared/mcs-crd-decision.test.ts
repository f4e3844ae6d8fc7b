import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compareReleases, type Crd, type CrdVersion, decideMcsCrd, MCS_RELEASE_LABEL, MCS_REVISION_LABEL } from "./mcs-crd-decision.ts";

const NAME = "serviceexports.multicluster.x-k8s.io";
const version = (name: string, storage: boolean, served = true): CrdVersion => ({ name, served, storage, schema: { openAPIV3Schema: { type: "object" } } });
function crd(labels: Record<string, string> | undefined, versions: CrdVersion[], storedVersions?: string[]): Crd {
  return { metadata: { name: NAME, ...(labels === undefined ? {} : { labels }) }, spec: { versions }, ...(storedVersions === undefined ? {} : { status: { storedVersions } }) };
}
const labelled = (release: string, revision?: string): Record<string, string> => ({ [MCS_RELEASE_LABEL]: release, ...(revision === undefined ? {} : { [MCS_REVISION_LABEL]: revision }) });
const OURS = crd(labelled("v0.5.2", "0"), [version("v1alpha1", false), version("v1beta1", true)]);
const BOTH = ["v1alpha1", "v1beta1"];

describe("decideMcsCrd", () => {
  const table: { name: string; served: Crd | undefined; action: string; reason: RegExp }[] = [
    { name: "nothing served: create", served: undefined, action: "create", reason: /not served/ },
    { name: "Karmada's unlabelled v1alpha1-only CRD: upgrade", served: crd(undefined, [version("v1alpha1", true)], ["v1alpha1"]), action: "upgrade", reason: /no multicluster.x-k8s.io\/release-version label/ },
    { name: "an older release: upgrade", served: crd(labelled("v0.4.1", "3"), [version("v1alpha1", false), version("v1beta1", true)], BOTH), action: "upgrade", reason: /release v0.4.1, older than ours/ },
    { name: "a pre-release of ours: upgrade", served: crd(labelled("v0.5.2-rc.1", "5"), [version("v1beta1", true)], ["v1beta1"]), action: "upgrade", reason: /older than ours/ },
    { name: "the same release, no revision label: upgrade", served: crd(labelled("v0.5.2"), [version("v1beta1", true)], ["v1beta1"]), action: "upgrade", reason: /revision \(none\)/ },
    { name: "the same release and revision: keep", served: OURS, action: "keep", reason: /served at release v0.5.2 revision 0, ours/ },
    { name: "a newer release at revision 0: keep (the revision is not compared across releases)", served: crd(labelled("v0.9.0", "0"), [version("v1beta1", true)], ["v1beta1"]), action: "keep", reason: /a newer .* is served \(release v0.9.0/ },
    { name: "a newer release without the v prefix: keep", served: crd(labelled("1.0.0", "0"), [version("v1", true)], ["v1"]), action: "keep", reason: /a newer/ },
    { name: "the same release at a higher revision: keep", served: crd(labelled("v0.5.2", "2"), [version("v1beta1", true)], ["v1beta1"]), action: "keep", reason: /a newer .* revision 2, ours revision 0/ },
    { name: "a release label that is no version: keep", served: crd(labelled("main"), [version("v1beta1", true)], ["v1beta1"]), action: "keep", reason: /not a version/ },
    { name: "a revision that is no number: keep", served: crd(labelled("v0.5.2", "x"), [version("v1beta1", true)], ["v1beta1"]), action: "keep", reason: /not a number/ },
  ];
  for (const row of table) {
    it(row.name, () => {
      const d = decideMcsCrd(row.served, OURS);
      assert.equal(d.action, row.action, d.reason);
      assert.match(d.reason, row.reason);
      assert.equal(d.apply !== undefined, row.action !== "keep");
      assert.equal(d.newer === true, /newer/.test(d.reason), "a newer served CRD is flagged for a warning");
    });
  }

  it("a lower revision of the same release is upgraded", () => {
    const ours = crd(labelled("v0.5.2", "1"), OURS.spec.versions);
    const d = decideMcsCrd(crd(labelled("v0.5.2", "0"), [version("v1beta1", true)], ["v1beta1"]), ours);
    assert.equal(d.action, "upgrade");
    assert.match(d.reason, /revision 0: upgrading to revision 1/);
  });

  it("upgrading Karmada's CRD applies ours as it is: v1alpha1, still stored there, stays served and v1beta1 becomes the storage version", () => {
    const d = decideMcsCrd(crd(undefined, [version("v1alpha1", true)], ["v1alpha1"]), OURS);
    assert.deepEqual(d.apply, OURS);
    assert.deepEqual(d.apply?.spec.versions.map((v) => [v.name, v.served, v.storage]), [["v1alpha1", true, false], ["v1beta1", true, true]]);
  });

  it("a version only the served CRD has stays in what is applied, served and not stored", () => {
    const served = crd(labelled("v0.4.1", "0"), [version("v1alpha2", true), version("v1beta1", false)], ["v1alpha2"]);
    const d = decideMcsCrd(served, OURS);
    assert.equal(d.action, "upgrade");
    assert.match(d.reason, /still serving v1alpha2/);
    assert.deepEqual(d.apply?.spec.versions.map((v) => [v.name, v.served, v.storage]), [["v1alpha1", true, false], ["v1beta1", true, true], ["v1alpha2", true, false]]);
    assert.deepEqual(OURS.spec.versions.length, 2, "ours is not changed");
  });

  it("a stored version no CRD defines any more keeps the served CRD (the apiserver would refuse the upgrade)", () => {
    const d = decideMcsCrd(crd(undefined, [version("v1beta1", true)], ["v1alpha0", "v1beta1"]), OURS);
    assert.equal(d.action, "keep");
    assert.match(d.reason, /stored as v1alpha0/);
  });

  it("a CRD of ours without a release label (ClusterProperty) is created, and a served one kept", () => {
    const ours = crd(undefined, [version("v1alpha1", false), version("v1beta1", true)]);
    assert.equal(decideMcsCrd(undefined, ours).action, "create");
    const d = decideMcsCrd(crd(undefined, [version("v1alpha1", true)], ["v1alpha1"]), ours);
    assert.equal(d.action, "keep");
    assert.match(d.reason, /no release to compare/);
  });
});

describe("compareReleases", () => {
  const table: [string, string, number | undefined][] = [
    ["v0.5.2", "v0.5.2", 0],
    ["v0.5.2", "v0.5.10", -1],
    ["v0.10.0", "v0.9.9", 1],
    ["v1.0.0", "v0.99.0", 1],
    ["v0.6.0-rc.1", "v0.6.0", -1],
    ["v0.6.0-rc.2", "v0.6.0-rc.10", -1],
    ["v0.6.0-alpha", "v0.6.0-beta", -1],
    ["v0.6.0-1", "v0.6.0-alpha", -1],
    ["v0.6.0-rc", "v0.6.0-rc.1", -1],
    ["v0.5.2+build", "v0.5.2", 0],
    ["latest", "v0.5.2", undefined],
    ["v0.5", "v0.5.2", undefined],
  ];
  for (const [a, b, sign] of table) {
    it(`${a} vs ${b}`, () => {
      const r = compareReleases(a, b);
      assert.equal(r === undefined ? undefined : Math.sign(r), sign);
      if (r !== undefined) assert.equal(Math.sign(compareReleases(b, a) as number), -Math.sign(r) || 0);
    });
  }
});
