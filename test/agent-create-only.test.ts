// The apiserver's side of the agent's create-only apply (agent/apply/create-only.ts), on a real one:
// server-side apply with metadata.resourceVersion "1" creates an object that does not exist, with
// a clean Apply entry in managedFields (so later applies own and prune its fields as usual), and
// is refused with 409 Conflict, changing nothing, when the object exists.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createOnly } from "../agent/apply/create-only.ts";
import type { KubeObject } from "../shared/api/types.ts";
import { isKubeStatus, KubeRest } from "../shared/kube-rest.ts";
import { type Fleet, startFleet } from "./env/fleet.ts";

const MANAGER = "flotilla-agent";
const path = (name: string) => `/api/v1/namespaces/default/configmaps/${name}`;
const configMap = (name: string, data: Record<string, string>): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" }, data } as KubeObject);

describe("create-only server-side apply", () => {
  let fleet: Fleet;
  let rest: KubeRest;
  before(async () => {
    fleet = await startFleet({ members: 0 });
    rest = new KubeRest(fleet.control.kubeConfig());
  });
  after(async () => {
    rest?.close();
    await fleet?.stop();
  });

  it("creates an object that does not exist, owned by an ordinary Apply entry", async () => {
    const created = await rest.apply<KubeObject & { data: Record<string, string> }>(path("fresh"), createOnly(configMap("fresh", { a: "1", b: "2" })), MANAGER, true);
    assert.deepEqual(created.data, { a: "1", b: "2" });
    const fields = (created.metadata as { managedFields?: { manager: string; operation: string; fieldsV1: unknown }[] }).managedFields ?? [];
    assert.deepEqual(fields.map((f) => [f.manager, f.operation]), [[MANAGER, "Apply"]]);
    // A later ordinary apply that drops b removes it: the create left nothing owned elsewhere.
    const updated = await rest.apply<{ data: Record<string, string> }>(path("fresh"), configMap("fresh", { a: "1" }), MANAGER, true);
    assert.deepEqual(updated.data, { a: "1" });
  });

  it("is refused with 409 by an existing object, which it leaves as it was", async () => {
    const theirs = await rest.apply<KubeObject & { data: Record<string, string> }>(path("theirs"), configMap("theirs", { owner: "member-admin" }), "kubectl", true);
    const err = await rest.apply(path("theirs"), createOnly(configMap("theirs", { owner: "flotilla" })), MANAGER, true).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(isKubeStatus(err, 409), `refused with 409, not ${String(err)}`);
    const now = await rest.get<KubeObject & { data: Record<string, string> }>(path("theirs"));
    assert.equal(now.metadata.resourceVersion, theirs.metadata.resourceVersion, "not written");
    assert.deepEqual(now.data, { owner: "member-admin" });
  });
});
