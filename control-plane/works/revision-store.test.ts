// The only deletion the progressive rollout adds: RevisionStore.prune, of its own ControllerRevisions
// in the control cluster (never a member object). It keeps the newest REVISIONS_KEPT and every
// revision a rollout state names, whatever their age, and deletes nothing it does not hold.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ROLLOUT_OF_LABEL } from "../../shared/api/resources.ts";
import type { ControllerRevision, KubeObject } from "../../shared/api/types.ts";
import type { Informer } from "../../shared/informer.ts";
import { KubeError, type KubeRest } from "../../shared/kube-rest.ts";
import { FakeInformer } from "../caches/fake-informer.fixtures.ts";
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

describe("RevisionStore: a Secret template's revisions (issue 37, item 5)", () => {
  const SECRET_KEY = "v1/Secret/shop/db";
  const secretTemplate = (password: string) =>
    ({ apiVersion: "v1", kind: "Secret", metadata: { name: "db", namespace: "shop", annotations: { "kubectl.kubernetes.io/last-applied-configuration": `{"data":{"password":"${password}"}}` } }, data: { password }, type: "Opaque" }) as unknown as KubeObject;
  const owner = { apiVersion: "v1", kind: "Secret", metadata: { name: "db", namespace: "shop", uid: "u-db", generation: 1 } } as KubeObject;

  /** A stored (cleaned) template never has the last-applied annotation: the revision gives back the rest. */
  const withoutLastApplied = (t: KubeObject) => ({ ...t, metadata: { ...t.metadata, annotations: {} } });

  function secretSetup() {
    const revisions = new FakeInformer<ControllerRevision>({ apiVersion: "apps/v1", kind: "ControllerRevision", plural: "controllerrevisions", namespaced: true });
    const secrets = new FakeInformer<KubeObject>({ apiVersion: "v1", kind: "Secret", plural: "secrets", namespaced: true });
    const calls: { method: string; path: string; body?: unknown }[] = [];
    let uid = 0;
    /** ControllerRevisions the apiserver holds that the informer may not have heard of yet. */
    const served = new Set<string>();
    const rest = {
      request: async (method: string, path: string, init: { body?: KubeObject } = {}) => {
        if (method === "GET") {
          if (served.has(path)) return {};
          throw new KubeError(404, "NotFound", "no such ControllerRevision");
        }
        calls.push({ method, path, body: init.body });
        if (method === "POST") return { ...init.body, metadata: { ...init.body?.metadata, uid: `u${++uid}` } };
        return {};
      },
    } as unknown as KubeRest;
    const store = new RevisionStore({ rest, namespace: "flotilla-system", informer: revisions as unknown as Informer<ControllerRevision>, secrets: secrets as unknown as Informer<KubeObject> });
    return { store, revisions, secrets, calls, served };
  }

  it("keeps the values in a Secret of its own, and the ControllerRevision without them; get gives the whole template", async () => {
    const s = secretSetup();
    await s.store.record(SECRET_KEY, owner, "db-secret", "r1", secretTemplate("czNjcmV0"));
    assert.deepEqual(s.calls.map((c) => `${c.method} ${c.path}`), ["POST /api/v1/namespaces/shop/secrets", "POST /apis/apps/v1/namespaces/shop/controllerrevisions"]);
    const [secretCall, revisionCall] = s.calls as unknown as [{ body: KubeObject & { type?: string } }, { body: ControllerRevision }];
    assert.equal(secretCall.body.type, "flotilla.dev/rollout-revision");
    assert.equal(secretCall.body.metadata.name, revisionCall.body.metadata.name);
    assert.deepEqual(secretCall.body.metadata.ownerReferences, [{ apiVersion: "v1", kind: "Secret", name: "db", uid: "u-db" }]);
    const shown = JSON.stringify(revisionCall.body);
    assert.ok(!shown.includes("czNjcmV0"), `the ControllerRevision shows a value: ${shown}`);
    assert.equal(revisionCall.body.metadata.annotations?.["flotilla.dev/revision-values-in-secret"], "r1");
    assert.deepEqual(s.store.get(SECRET_KEY, "r1")?.template, withoutLastApplied(secretTemplate("czNjcmV0")));
  });

  it("a revision whose values' Secret is missing is not stored: never rendered from the copy without values", async () => {
    const s = secretSetup();
    await s.store.record(SECRET_KEY, owner, "db-secret", "r1", secretTemplate("czNjcmV0"));
    const [secretCall] = s.calls as unknown as [{ body: KubeObject }];
    s.secrets.remove(secretCall.body); // filed from the POST; the informer then hears it gone
    assert.equal(s.store.get(SECRET_KEY, "r1"), undefined);
  });

  it("names the revision under another annotation than a values-holding one, which an earlier version never files", async () => {
    const s = secretSetup();
    await s.store.record(SECRET_KEY, owner, "db-secret", "r1", secretTemplate("czNjcmV0"));
    const revision = (s.calls[1] as { body: ControllerRevision }).body;
    assert.equal(revision.metadata.annotations?.["flotilla.dev/revision"], undefined);
    assert.equal(revision.metadata.annotations?.["flotilla.dev/revision-values-in-secret"], "r1");
    // Filed by this version from the informer too (a restart reads it back).
    const other = secretSetup();
    other.secrets.put({ ...(s.calls[0] as { body: KubeObject }).body, metadata: { ...(s.calls[0] as { body: KubeObject }).body.metadata, uid: "u1" } });
    other.revisions.put({ ...revision, metadata: { ...revision.metadata, uid: "cr1" } });
    assert.deepEqual(other.store.get(SECRET_KEY, "r1")?.template, withoutLastApplied(secretTemplate("czNjcmV0")));
  });

  it("prune deletes the values' Secret with its ControllerRevision, only that object (its uid)", async () => {
    const s = secretSetup();
    for (let n = 1; n <= REVISIONS_KEPT + 1; n++) {
      await s.store.record(SECRET_KEY, owner, "db-secret", `r${n}`, secretTemplate(`v${n}`));
      const posted = s.calls.filter((c) => c.method === "POST").at(-1) as { body: ControllerRevision };
      s.revisions.put({ ...posted.body, metadata: { ...posted.body.metadata, uid: `cr${n}` }, revision: n });
    }
    s.calls.length = 0;
    assert.equal(await s.store.prune(SECRET_KEY, new Set()), 1);
    assert.deepEqual(
      s.calls.map((c) => [c.method, c.path, c.body]),
      [
        ["DELETE", "/api/v1/namespaces/shop/secrets/db-secret-r1", { preconditions: { uid: "u1" } }],
        ["DELETE", "/apis/apps/v1/namespaces/shop/controllerrevisions/db-secret-r1", undefined],
      ],
    );
  });

  it("prune deletes values whose ControllerRevision was never written, unless a rollout names their revision; another template's never", async () => {
    const s = secretSetup();
    const stray = (name: string, revision: string, key = SECRET_KEY) =>
      s.secrets.put({ apiVersion: "v1", kind: "Secret", metadata: { name, namespace: "shop", uid: `u-${name}`, labels: { [ROLLOUT_OF_LABEL]: "x" }, annotations: { "flotilla.dev/template-key": key, "flotilla.dev/revision": revision } }, type: "flotilla.dev/rollout-revision", data: {} } as unknown as KubeObject);
    stray("db-secret-r7", "r7");
    stray("db-secret-r8", "r8");
    stray("other-secret-r9", "r9", "v1/Secret/shop/other");
    assert.equal(await s.store.prune(SECRET_KEY, new Set(["r8"])), 0);
    assert.deepEqual(s.calls.map((c) => [c.method, c.path, c.body]), [["DELETE", "/api/v1/namespaces/shop/secrets/db-secret-r7", { preconditions: { uid: "u-db-secret-r7" } }]]);
  });

  it("never deletes values whose ControllerRevision the apiserver holds but this replica's informer has not heard of (a new leader's lagging cache)", async () => {
    const s = secretSetup();
    s.secrets.put({ apiVersion: "v1", kind: "Secret", metadata: { name: "db-secret-r7", namespace: "shop", uid: "u7", annotations: { "flotilla.dev/template-key": SECRET_KEY, "flotilla.dev/revision": "r7" } }, type: "flotilla.dev/rollout-revision", data: {} } as unknown as KubeObject);
    s.served.add("/apis/apps/v1/namespaces/shop/controllerrevisions/db-secret-r7");
    assert.equal(await s.store.prune(SECRET_KEY, new Set()), 0);
    assert.deepEqual(s.calls, []);
  });

  it("never deletes a user's Secret that has a values Secret's name but not its type", async () => {
    const s = secretSetup();
    s.secrets.put({ apiVersion: "v1", kind: "Secret", metadata: { name: "db-secret-r7", namespace: "shop", uid: "u7", annotations: { "flotilla.dev/template-key": SECRET_KEY, "flotilla.dev/revision": "r7" } }, type: "Opaque", data: { a: "Yg==" } } as unknown as KubeObject);
    assert.equal(await s.store.prune(SECRET_KEY, new Set()), 0);
    assert.deepEqual(s.calls, []);
  });
});
