// Issue 42's perf gate: a small real fleet (control + 2 members, the real control plane and agents)
// takes T Deployments under a Duplicated policy to Available, and the suite fails when the control
// cluster's writes per template, counted by its own apiserver, go above the goal; and C ConfigMaps
// to both members, and it fails when the hub encodes a Work more than once for its fan-out (its
// own counters). Nothing is timed: a regression is caught here, not by the next benchmark run.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { RESOURCES } from "../../shared/api/resources.ts";
import { collectionPath, KubeRest, type ResourceInfo } from "../../shared/kube-rest.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { waitFor } from "../env/wait.ts";
import { member2Later, WRITES_PER_TEMPLATE_GOAL, writesToAvailable } from "./write-gate.fixtures.ts";

const T = 6;
/** ConfigMaps rendered the same for both members: one encoding each, written to 2 streams. */
const C = 4;
const NS = "perf-gate";
const CONFIGMAPS: ResourceInfo = { apiVersion: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true };
const configMap = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: NS, labels: { gate: "fan-out" } }, data: { v: name } });

describe("perf gate: control writes per template and encodings per fan-out on a small fleet", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let control: KubeRest;

  before(async () => {
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet, { logLevel: "warn" });
    control = new KubeRest(fleet.control.kubeConfig());
    await control.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } } });
    const policy = { apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "all", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment" }] } };
    await control.request("POST", collectionPath(RESOURCES.propagationPolicy, NS), { body: policy });
    // member2's copies become Available 2 s after member1's: one change's answers arrive over seconds.
    await control.request("POST", collectionPath(RESOURCES.overridePolicy, NS), { body: member2Later(NS) });
    const maps = { apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "maps", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", labelSelector: { matchLabels: { gate: "fan-out" } } }] } };
    await control.request("POST", collectionPath(RESOURCES.propagationPolicy, NS), { body: maps });
  });
  after(async () => {
    control?.close();
    await flotilla?.stop();
    await fleet?.stop();
  });

  it(`${T} Deployments to Available in 2 members: at most ${WRITES_PER_TEMPLATE_GOAL} control writes each`, async (t) => {
    const { perTemplate, writes } = await writesToAvailable(control, NS, T, 2);
    t.diagnostic(`${perTemplate.toFixed(2)} control writes per template (goal ≤ ${WRITES_PER_TEMPLATE_GOAL}), besides the ${T} templates: ${writes}`);
    assert.ok(perTemplate <= WRITES_PER_TEMPLATE_GOAL, `${perTemplate.toFixed(2)} control writes per template, above the goal of ${WRITES_PER_TEMPLATE_GOAL}: ${writes}`);
    // The count is of real writes: a binding per template at least.
    assert.ok(perTemplate >= 1, `${perTemplate} writes per template cannot be: ${writes}`);
  });

  it(`${C} ConfigMaps to 2 members: one encoding per Work for its 2 streams`, async (t) => {
    const count = async () => {
      const m = await flotilla.controlPlaneMetrics();
      return { encodings: m.flotilla_hub_work_encodings_total ?? 0, written: m.flotilla_hub_work_upserts_written_total ?? 0 };
    };
    const before = await count();
    for (let i = 0; i < C; i++) await control.request("POST", collectionPath(CONFIGMAPS, NS), { body: configMap(`cm-${i}`) });
    let after = before;
    await waitFor(
      async () => {
        after = await count();
        return after.written - before.written >= 2 * C ? true : undefined;
      },
      { what: `${2 * C} WorkUpserts written`, timeoutMs: 60_000, intervalMs: 250 },
    );
    const encodings = after.encodings - before.encodings;
    const written = after.written - before.written;
    t.diagnostic(`${encodings} encodings for ${written} WorkUpserts written (${((2 * encodings) / written).toFixed(2)} per fan-out of one Work to 2 streams; goal 1)`);
    assert.ok(written >= 2 * C, `${written} WorkUpserts written`);
    // Every Work here goes to both members alike: each is encoded once for its 2 streams.
    assert.ok(2 * encodings <= written, `${encodings} encodings for ${written} WorkUpserts written to 2 members alike: a fan-out encodes each Work once`);
  });
});
