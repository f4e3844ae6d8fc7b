// The agent's deletes (agent/applied/member-deletion.ts, judged by agent/judge/deletion-judge.ts) on a real
// apiserver: only the object a Work applied goes, by the uid its record kept. An object made again
// under the same name with the Work's labels (by a user, a restore, another tool) is another
// object and stays (released from Flotilla), and so does a Namespace that holds a user's copy carrying the Work's labels
// under another name (issue 37: identity, never labels alone).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import type { AppliedResource } from "../agent/judge/applied-record.ts";
import { type DeletionStats, MemberDeletion } from "../agent/applied/member-deletion.ts";
import { ObjectWatch } from "../agent/applied/object-watch.ts";
import { adoptsFromPrevious } from "../agent/apply/adoption.ts";
import { WORK_KEY_ANNOTATION } from "../shared/work-key.ts";
import type { KubeObject } from "../shared/api/types.ts";
import { Discovery } from "../shared/discovery.ts";
import { isKubeStatus, KubeRest } from "../shared/kube-rest.ts";
import { workKeyLabelValue } from "../shared/work-key.ts";
import { type Fleet, startFleet } from "./env/fleet.ts";

const log = pino({ level: "silent" });
const cmKey = (ns: string, name: string) => `core/v1/ConfigMap/${ns}/${name}`;
const nsKey = (name: string) => `core/v1/Namespace//${name}`;
const labelled = (kind: string, name: string, key: string, namespace?: string): KubeObject => ({
  apiVersion: "v1",
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}), labels: { "flotilla.dev/work": workKeyLabelValue(key) }, annotations: { [WORK_KEY_ANNOTATION]: key } },
});
const cmPath = (ns: string, name: string) => `/api/v1/namespaces/${ns}/configmaps/${name}`;

describe("the agent deletes only the object a Work applied (its uid)", () => {
  let fleet: Fleet;
  let rest: KubeRest;
  let deletion: MemberDeletion;
  let stats: DeletionStats;
  let watch: ObjectWatch;
  before(async () => {
    fleet = await startFleet({ members: 0 });
    const kc = fleet.control.kubeConfig();
    rest = new KubeRest(kc);
    stats = { deletes: 0, deletesByReason: new Map() };
    // Never synced in this test: each get reads the apiserver, as an agent's first look does.
    watch = new ObjectWatch({ kc, rest, log, onChange: () => {} });
    deletion = new MemberDeletion({ rest, discovery: new Discovery(rest), objects: watch, stats, log });
  });
  after(async () => {
    rest?.close();
    await fleet?.stop();
  });

  const apply = (o: KubeObject, path: string) => rest.apply<KubeObject>(path, o, "test", true);
  const exists = async (path: string) => rest.get<KubeObject>(path).then((o) => o.metadata.uid, (e: unknown) => (isKubeStatus(e, 404) ? undefined : Promise.reject(e)));

  it("the object applied (its uid recorded) is deleted", async () => {
    const key = cmKey("default", "applied");
    const o = await apply(labelled("ConfigMap", "applied", key, "default"), cmPath("default", "applied"));
    const r: AppliedResource = { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "applied", uid: o.metadata.uid as string };
    const { kept, failures } = await deletion.removeAll(key, [r], workKeyLabelValue(key), false, "TemplateDeleted");
    assert.deepEqual([kept, failures], [[], []]);
    assert.equal(await exists(cmPath("default", "applied")), undefined);
  });

  it("a released object adopted from KubeFed loses KubeFed's label too: no template marked for adoption takes it over again under Abort", async () => {
    const key = cmKey("default", "adopted");
    const base = labelled("ConfigMap", "adopted", key, "default");
    await apply({ ...base, metadata: { ...base.metadata, labels: { ...base.metadata.labels, "kubefed.io/managed": "true", app: "web" } } }, cmPath("default", "adopted"));
    const r: AppliedResource = { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "adopted" };
    const { kept, failures } = await deletion.removeAll(key, [r], workKeyLabelValue(key), true, "PlacementChanged");
    assert.deepEqual([kept, failures], [[], []]);
    const live = await rest.get<KubeObject>(cmPath("default", "adopted"));
    assert.deepEqual(live.metadata.labels, { app: "web" }, "the object stays, released, with the user's label only");
    assert.equal(adoptsFromPrevious({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "adopted", annotations: { "flotilla.dev/adopt": "kubefed" } } }, live), false);
  });

  it("an object made again under its name with the Work's labels (another uid) stays: not the one applied", async () => {
    const key = cmKey("default", "remade");
    const first = await apply(labelled("ConfigMap", "remade", key, "default"), cmPath("default", "remade"));
    const r: AppliedResource = { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "remade", uid: first.metadata.uid as string };
    await rest.delete(cmPath("default", "remade"));
    const remade = await apply(labelled("ConfigMap", "remade", key, "default"), cmPath("default", "remade"));
    assert.notEqual(remade.metadata.uid, first.metadata.uid);
    const before = stats.deletes;
    await deletion.removeAll(key, [r], workKeyLabelValue(key), false, "TemplateDeleted");
    assert.equal(await exists(cmPath("default", "remade")), remade.metadata.uid, "the user's object is still there, the same one");
    assert.equal(stats.deletes, before, "nothing deleted");
    // Released: without Flotilla's label, no later orphan scan takes it for the Work's.
    const now = await rest.get<KubeObject>(cmPath("default", "remade"));
    assert.equal(now.metadata.labels?.["flotilla.dev/work"], undefined);
    assert.equal(now.metadata.annotations?.[WORK_KEY_ANNOTATION], undefined);
  });

  it("an object another Work of the agent applied too (one member object, two Works: a selector moved to another version of a CRD) stays for it", async () => {
    const key = cmKey("default", "twice");
    const o = await apply(labelled("ConfigMap", "twice", key, "default"), cmPath("default", "twice"));
    const r: AppliedResource = { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "twice", uid: o.metadata.uid as string };
    const other = new MemberDeletion({ rest, discovery: new Discovery(rest), objects: watch, stats, log, sharedWith: (k) => (k === key ? "example/v2/Twice/default/twice" : undefined) });
    const before = stats.deletes;
    await other.removeAll(key, [r], workKeyLabelValue(key), false, "PlacementChanged");
    assert.equal(await exists(cmPath("default", "twice")), o.metadata.uid, "the same object stays");
    assert.equal(stats.deletes, before);
  });

  it("a Namespace holding a user's copy with the Namespace Work's labels under another name stays, and the copy with it", async () => {
    const key = nsKey("copied");
    const ns = await apply(labelled("Namespace", "copied", key), "/api/v1/namespaces/copied");
    // kubectl get -o yaml of an object the Namespace's Work labelled, renamed and applied: the labels travel.
    const copy = await apply(labelled("ConfigMap", "copy", key, "copied"), cmPath("copied", "copy"));
    const r: AppliedResource = { apiVersion: "v1", kind: "Namespace", name: "copied", uid: ns.metadata.uid as string };
    const { kept } = await deletion.removeAll(key, [r], workKeyLabelValue(key), false, "TemplateDeleted");
    assert.equal(kept.length, 1);
    assert.match(kept[0] as string, /kept Namespace copied: it holds 1 object/);
    const live = await rest.get<KubeObject>("/api/v1/namespaces/copied");
    assert.equal(live.metadata.uid, ns.metadata.uid);
    assert.equal(live.metadata.deletionTimestamp, undefined, "not being deleted");
    assert.equal(await exists(cmPath("copied", "copy")), copy.metadata.uid);
  });
});
