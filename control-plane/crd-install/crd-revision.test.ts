import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { describe, it } from "node:test";
import { CRD_FILES_SHA256, CRD_REVISION, CRD_REVISION_ANNOTATION, crdInstallAction, crdsOfRevision } from "./crd-revision.ts";
import { loadCrds } from "./crds.ts";

describe("crdInstallAction: never replace a newer served CRD", () => {
  const served = (revision?: string): { annotations: Record<string, string> } => ({ annotations: revision === undefined ? {} : { [CRD_REVISION_ANNOTATION]: revision } });
  const cases: { name: string; served: { annotations?: Record<string, string> } | undefined; want: "apply" | "keep-newer" }[] = [
    { name: "not served yet", served: undefined, want: "apply" },
    { name: "served from before revisions", served: served(), want: "apply" },
    { name: "an older revision", served: served("1"), want: "apply" },
    { name: "the same revision (a restart: an unchanged apply is a no-op)", served: served("2"), want: "apply" },
    { name: "a newer revision (a rollback, or an old replica in a rolling upgrade)", served: served("3"), want: "keep-newer" },
    { name: "a revision that is not a number", served: served("abc"), want: "apply" },
  ];
  for (const c of cases) it(c.name, () => assert.equal(crdInstallAction(c.served, 2), c.want));
});

describe("crdInstallAction: a shared API's CRD (ClusterProfile) another installer serves stays theirs", () => {
  const served = (revision?: string): { annotations: Record<string, string> } => ({ annotations: revision === undefined ? {} : { [CRD_REVISION_ANNOTATION]: revision } });
  const cases: { name: string; served: { annotations?: Record<string, string> } | undefined; want: "apply" | "keep-newer" | "keep-theirs" }[] = [
    { name: "not served yet: ours is installed", served: undefined, want: "apply" },
    { name: "served without our annotation (another cluster manager's, upstream's release): kept", served: served(), want: "keep-theirs" },
    { name: "served without metadata annotations at all: kept", served: {}, want: "keep-theirs" },
    { name: "ours of an older revision: replaced", served: served("1"), want: "apply" },
    { name: "ours of this revision: applied (a no-op)", served: served("2"), want: "apply" },
    { name: "ours of a newer revision: kept", served: served("3"), want: "keep-newer" },
  ];
  for (const c of cases) it(c.name, () => assert.equal(crdInstallAction(c.served, 2, { shared: true }), c.want));
});

describe("crdsOfRevision: a bundle's parsed CRDs are used only when they are this revision's", () => {
  const at = (r: string) => ({ metadata: { annotations: { [CRD_REVISION_ANNOTATION]: r } } });
  const cases = [
    { name: "all of this revision", crds: [at("2"), at("2")], want: true },
    { name: "one of an older build", crds: [at("2"), at("1")], want: false },
    { name: "one without the annotation", crds: [at("2"), { metadata: {} }], want: false },
    { name: "none", crds: [], want: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(crdsOfRevision(c.crds, 2), c.want));
});

describe("the CRD files and their revision", () => {
  it("every CRD file carries CRD_REVISION", async () => {
    for (const crd of await loadCrds()) assert.equal(crd.metadata.annotations?.[CRD_REVISION_ANNOTATION], String(CRD_REVISION), crd.metadata.name);
  });
  it("the files are the ones CRD_REVISION was given to: a change to them bumps it", async () => {
    const dir = new URL("../crds/", import.meta.url);
    const h = createHash("sha256");
    for (const f of (await readdir(dir)).filter((x) => x.endsWith(".yaml")).sort()) {
      h.update(`${f}\0`);
      h.update(await readFile(new URL(f, dir)));
      h.update("\0");
    }
    assert.equal(h.digest("hex"), CRD_FILES_SHA256, "control-plane/crds/ changed: bump CRD_REVISION (and the annotation in every file), then record the new hash in control-plane/crd-install/crd-revision.ts");
  });
});
