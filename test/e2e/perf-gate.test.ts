// Issue 42's perf gate: a small real fleet (control + 2 members, the real control plane and agents)
// takes T Deployments under a Duplicated policy to Available, and the suite fails when the control
// cluster's writes per template, counted by its own apiserver, go above the goal. Nothing is timed:
// a regression in the status writes is caught here, not by the next benchmark run.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { RESOURCES } from "../../shared/api/resources.ts";
import { collectionPath, KubeRest } from "../../shared/kube-rest.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { member2Later, WRITES_PER_TEMPLATE_GOAL, writesToAvailable } from "./write-gate.fixtures.ts";

const T = 6;
const NS = "perf-gate";

describe("perf gate: control writes per template on a small fleet", () => {
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
});
