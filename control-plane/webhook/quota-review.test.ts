import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import pino from "pino";
import type { FederatedResourceQuota } from "../../shared/api/quota.ts";
import type { KubeObject, ResourceBinding } from "../../shared/api/types.ts";
import { NATIVE_INTERPRETERS } from "../../shared/interpreter/registry.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import { Caches } from "../caches/caches.ts";
import { fakeInformers } from "../caches/fake-informer.fixtures.ts";
import { fakeTemplates } from "../detector/template-informers.fixtures.ts";
import type { AdmissionRequest } from "./admission.ts";
import { reviewFederatedResourceQuota, reviewTemplateQuota } from "./quota-review.ts";

const deployment = (name: string, replicas: number, cpu = "500m", labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, namespace: "shop", labels },
  spec: { replicas, template: { spec: { containers: [{ name: "c", image: "nginx", resources: { requests: { cpu } } }] } } },
});
const quota: FederatedResourceQuota = { apiVersion: "flotilla.dev/v1alpha1", kind: "FederatedResourceQuota", metadata: { name: "team", namespace: "shop" }, spec: { overall: { cpu: "2" } } };
const bindingOf = (t: KubeObject, clusters: string[]): ResourceBinding =>
  ({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "ResourceBinding",
    metadata: { name: `${t.metadata.name}-deployment`, namespace: "shop" },
    spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name: t.metadata.name ?? "" }, replicas: (t.spec as { replicas: number }).replicas, clusters: clusters.map((name) => ({ name, replicas: (t.spec as { replicas: number }).replicas })) },
  }) as ResourceBinding;

/** A namespace "shop" with the quota (cpu 2) and `web` (2 × 500m) bound to member1. */
function sources(withQuota = true) {
  const fakes = fakeInformers();
  const caches = new Caches(new KubeConfig(), {} as KubeRest, pino({ level: "silent" }), fakes.make);
  const web = deployment("web", 2);
  if (withQuota) fakes.of<FederatedResourceQuota>("federatedresourcequotas").put(quota);
  fakes.of<ResourceBinding>("resourcebindings").put(bindingOf(web, ["member1"]));
  return { caches, templates: fakeTemplates([web]), interpreters: NATIVE_INTERPRETERS, web, fakes };
}
const req = (r: Partial<AdmissionRequest>): AdmissionRequest => ({ uid: "u", operation: "CREATE", namespace: "shop", ...r });
const none = async () => undefined;

describe("reviewTemplateQuota: a template change against the namespace's quotas", () => {
  it("no quota in the namespace: allowed, whatever it asks", async () => {
    assert.equal((await reviewTemplateQuota(req({ name: "big", object: deployment("big", 100) }), sources(false), none)).allowed, true);
  });
  it("a create within overall is allowed", async () => {
    assert.equal((await reviewTemplateQuota(req({ name: "small", object: deployment("small", 2) }), sources(), none)).allowed, true);
  });
  it("a create past overall is refused with the quota's message", async () => {
    const r = await reviewTemplateQuota(req({ name: "big", object: deployment("big", 3) }), sources(), none);
    assert.equal(r.allowed, false);
    assert.equal(r.status?.code, 403);
    assert.equal(r.status?.message, "FederatedResourceQuota(shop/team) exceeded for resource cpu: requested sum 2500m, limit 2 (Deployment big takes 1500m, the namespace's other workloads 1)");
  });
  it("an update of a bound template counts its binding's copies: Duplicated to two clusters, 3 replicas take 3 cpu", async () => {
    const src = sources();
    src.fakes.of<ResourceBinding>("resourcebindings").put(bindingOf(src.web, ["member1", "member2"]));
    const r = await reviewTemplateQuota(req({ operation: "UPDATE", name: "web", object: deployment("web", 3), oldObject: src.web }), src, none);
    assert.match(r.status?.message ?? "", /requested sum 3, limit 2 \(Deployment web takes 3, the namespace's other workloads 0\)/);
  });
  it("an update that changes nothing the quota counts is allowed, even over quota", async () => {
    const src = sources();
    src.fakes.of<FederatedResourceQuota>("federatedresourcequotas").put({ ...quota, spec: { overall: { cpu: "100m" } } });
    const r = await reviewTemplateQuota(req({ operation: "UPDATE", name: "web", object: deployment("web", 2, "500m", { team: "a" }), oldObject: src.web }), src, none);
    assert.equal(r.allowed, true);
  });
  it("a scale-up through the scale subresource: the stored template with the Scale's replicas", async () => {
    const src = sources();
    const scale = { apiVersion: "autoscaling/v1", kind: "Scale", metadata: { name: "web", namespace: "shop" }, spec: { replicas: 5 } };
    const r = await reviewTemplateQuota(req({ operation: "UPDATE", name: "web", subResource: "scale", resource: { group: "apps", version: "v1", resource: "deployments" }, object: scale }), src, async () => src.web);
    assert.match(r.status?.message ?? "", /requested sum 2500m, limit 2 \(Deployment web takes 2500m, the namespace's other workloads 0\)/);
    const down = await reviewTemplateQuota(req({ operation: "UPDATE", name: "web", subResource: "scale", object: { ...scale, spec: { replicas: 1 } } }), src, async () => src.web);
    assert.equal(down.allowed, true);
  });
});

describe("reviewFederatedResourceQuota", () => {
  it("refuses assignments past overall, exactly; allows what adds up to it", () => {
    const obj = (m2: string) => ({ ...quota, spec: { overall: { cpu: "1" }, staticAssignments: [{ clusterName: "member1", hard: { cpu: "300m" } }, { clusterName: "member2", hard: { cpu: m2 } }] } });
    assert.equal(reviewFederatedResourceQuota(req({ object: obj("700m") })).allowed, true);
    assert.equal(reviewFederatedResourceQuota(req({ object: obj("701m") })).status?.message, 'spec.overall[cpu]: Invalid value: "1": overall is less than assignments (1001m)');
  });
});
