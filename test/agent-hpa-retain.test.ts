// The replicas a member HPA holds, on a real apiserver (issue 37; agent/apply/manifest-apply.ts): the
// agent takes them from the object as the apiserver has it when it applies, never from its watch
// cache, which may lag the HPA's write. The 10-minute chaos run saw a lagging cache's value written
// over the user's HPA (member3, deployment0: 15 over 17).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import { AppliedStore } from "../agent/applied/applied-store.ts";
import { HpaIndex } from "../agent/apply/hpa-index.ts";
import { ManifestApplier } from "../agent/apply/manifest-apply.ts";
import { ObjectWatch } from "../agent/applied/object-watch.ts";
import { WORK_KEY_ANNOTATION } from "../shared/work-key.ts";
import type { KubeObject } from "../shared/api/types.ts";
import { Discovery } from "../shared/discovery.ts";
import { KubeRest, type ResourceInfo } from "../shared/kube-rest.ts";
import { workKeyLabelValue } from "../shared/work-key.ts";
import { type Fleet, startFleet } from "./env/fleet.ts";

const log = pino({ level: "silent" });
const key = "apps/v1/Deployment/default/web";
const path = "/apis/apps/v1/namespaces/default/deployments/web";
const deployment = (replicas: number, image = "nginx:1"): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "default" },
  spec: { replicas, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image }] } } },
});

/** An object watch whose cache lags: it still shows the Deployment as it was before the HPA scaled it. */
class LaggingWatch extends ObjectWatch {
  stale: KubeObject | undefined;
  override async get(resource: ResourceInfo, namespace: string | undefined, name: string): Promise<KubeObject | undefined> {
    return this.stale ?? super.get(resource, namespace, name);
  }
}

describe("the replicas a member HPA holds are never set back from a lagging cache", () => {
  let fleet: Fleet;
  let rest: KubeRest;
  let hpas: HpaIndex;
  before(async () => {
    fleet = await startFleet({ members: 0 });
    rest = new KubeRest(fleet.control.kubeConfig());
    hpas = new HpaIndex({ kc: fleet.control.kubeConfig(), rest, log });
  });
  after(async () => {
    hpas?.stop();
    rest?.close();
    await fleet?.stop();
  });

  it("a template change applied while the cache shows the value before the HPA's scale keeps the HPA's", async () => {
    const objects = new LaggingWatch({ kc: fleet.control.kubeConfig(), rest, log, onChange: () => {} });
    const applier = new ManifestApplier({ rest, discovery: new Discovery(rest), applied: new AppliedStore({ rest, namespace: "default", log }), objects, hpas, counts: { applies: 0, createConflicts: 0 }, log });
    const label = workKeyLabelValue(key);
    const first = await applier.applyManifest(key, label, deployment(2), "Abort", true);
    assert.equal(first.applied, true, first.message);
    const before = await rest.get<KubeObject>(path);
    assert.equal(before.metadata.annotations?.[WORK_KEY_ANNOTATION], key);
    // The user's HPA scales it to 6 (as the HPA controller does: the scale subresource).
    await rest.apply(
      "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web",
      { apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", metadata: { name: "web", namespace: "default" }, spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, minReplicas: 1, maxReplicas: 10 } },
      "user",
      true,
    );
    await rest.mergePatch(`${path}/scale`, { spec: { replicas: 6 } });
    await hpas.whenListed(10_000);
    for (let i = 0; i < 100 && hpas.scales("default", "apps/v1", "Deployment", "web") !== true; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(hpas.scales("default", "apps/v1", "Deployment", "web"), true, "the agent's HPA index sees it");
    // The cache still shows replicas 2; the template changes (another image, replicas 3).
    objects.stale = before;
    const again = await applier.applyManifest(key, label, deployment(3, "nginx:2"), "Abort", true);
    assert.equal(again.applied, true, again.message);
    const now = await rest.get<KubeObject & { spec: { replicas: number; template: { spec: { containers: { image: string }[] } } } }>(path);
    assert.equal(now.spec.template.spec.containers[0]?.image, "nginx:2", "the template's change applied");
    assert.equal(now.spec.replicas, 6, "the HPA's replicas kept");
  });
});
