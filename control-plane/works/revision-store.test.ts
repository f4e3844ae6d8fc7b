// The only deletion the progressive rollout adds: RevisionStore.prune, of its own ControllerRevisions
// in the control cluster (never a member object). It keeps the newest REVISIONS_KEPT and every
// revision a rollout state names, whatever their age, and deletes nothing it does not hold.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ROLLOUT_OF_LABEL } from "../../shared/api/resources.ts";
import type { ControllerRevision, KubeObject } from "../../shared/api/types.ts";
import type { Informer } from "../../shared/informer.ts";
import { KubeError, type KubeRest } from "../../shared/kube-rest.ts";
import { FakeInformer } from "../fake-informer.fixtures.ts";
import { REVISIONS_KEPT, RevisionStore, rolloutOfLabel } from "./revision-store.ts";

const KEY = "apps/v1/Deployment/default/web";

function setup(count: number, opts: { notFound?: boolean } = {}) {
  const informer = new FakeInformer<ControllerRevision>({ apiVersion: "apps/v1", kind: "ControllerRevision", plural: "controllerrevisions", namespaced: true });
  const deleted: string[] = [];
  const rest = {
    request: async (method: string, path: string) => {
      assert.equal(method, "DELETE");
      deleted.push(path.split("/").pop() ?? "");
      if (opts.notFound === true) throw new KubeError(404, "NotFound", "gone already");
      return {};
    },
  } as unknown as KubeRest;
  const store = new RevisionStore({ rest, namespace: "flotilla-system", informer: informer as unknown as Informer<ControllerRevision> });
  for (let n = 1; n <= count; n++) {
    informer.put({
      apiVersion: "apps/v1",
      kind: "ControllerRevision",
      metadata: { name: `web-deployment-r${n}`, namespace: "default", labels: { [ROLLOUT_OF_LABEL]: rolloutOfLabel(KEY) }, annotations: { "flotilla.dev/template-key": KEY, "flotilla.dev/revision": `r${n}` } },
      data: { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" } } as KubeObject,
      revision: n,
    });
  }
  return { store, deleted };
}

describe("RevisionStore.prune", () => {
  it(`keeps the newest ${REVISIONS_KEPT}: with no more than that it deletes nothing`, async () => {
    const s = setup(REVISIONS_KEPT);
    assert.equal(await s.store.prune(KEY, new Set()), 0);
    assert.deepEqual(s.deleted, []);
  });

  it("deletes only the oldest past them, never one a rollout state names (the stable revision of a long rollout)", async () => {
    const s = setup(REVISIONS_KEPT + 3);
    assert.equal(await s.store.prune(KEY, new Set(["r1", "r13"])), 2);
    assert.deepEqual(s.deleted.sort(), ["web-deployment-r2", "web-deployment-r3"]);
    assert.ok(s.store.get(KEY, "r1") !== undefined, "the named revision is still there to render from");
  });

  it("a template's revisions are all named: nothing is deleted", async () => {
    const s = setup(REVISIONS_KEPT + 2);
    assert.equal(await s.store.prune(KEY, new Set(Array.from({ length: REVISIONS_KEPT + 2 }, (_, i) => `r${i + 1}`))), 0);
    assert.deepEqual(s.deleted, []);
  });

  it("another template's revisions are never touched, and one deleted already (404) is no error", async () => {
    const s = setup(REVISIONS_KEPT + 1, { notFound: true });
    assert.equal(await s.store.prune("apps/v1/Deployment/default/other", new Set()), 0);
    assert.deepEqual(s.deleted, []);
    assert.equal(await s.store.prune(KEY, new Set()), 1);
    assert.deepEqual(s.deleted, ["web-deployment-r1"]);
  });
});
