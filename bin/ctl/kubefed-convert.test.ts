import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster, KubeObject, PropagationPolicy } from "../../shared/api/types.ts";
import { selectClusters } from "../../control-plane/scheduling/placement.ts";
import { convertKubefed, defaultPullPolicy } from "./kubefed-convert.ts";
import type { MigrationItem } from "./migrate-convert.ts";

const fleet = ["member1", "member2", "member3"].map((name, i) => ({ apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name, labels: { region: i === 1 ? "us" : "eu" } }, spec: {} }) as Cluster);
const fedNs = (name: string, placement: unknown): KubeObject => ({ apiVersion: "types.kubefed.io/v1beta1", kind: "FederatedNamespace", metadata: { name, namespace: name }, spec: { placement } });
const fed = (kind: string, name: string, spec: Record<string, unknown>, namespace: string | undefined = "shop"): KubeObject => ({ apiVersion: "types.kubefed.io/v1beta1", kind, metadata: { name, ...(namespace === undefined ? {} : { namespace }) }, spec });
const everywhere = { clusters: [{ name: "member1" }, { name: "member2" }, { name: "member3" }] };
const objectOf = (items: MigrationItem[], kind: string) => items.find((i) => i.object?.kind === kind)?.object;
const problemsOf = (items: MigrationItem[]) => items.flatMap((i) => i.problems);
/** Where the converted policy places its object, as Flotilla's scheduler selects. */
function placedIn(items: MigrationItem[]): string[] {
  const policies = items.filter((i) => i.object?.kind.endsWith("PropagationPolicy")).map((i) => i.object as PropagationPolicy);
  // The object's own policy: not its namespace's, unless the Namespace is what was converted.
  const p = policies.find((x) => x.spec.resourceSelectors[0]?.kind !== "Namespace") ?? policies[0];
  assert.ok(p !== undefined, "a policy");
  return selectClusters(p.spec.placement?.clusterAffinity, fleet);
}

describe("convertKubefed: a Federated object", () => {
  const deployment = fed("FederatedDeployment", "web", {
    template: { metadata: { labels: { app: "web", "kubefed.io/managed": "true" }, annotations: { note: "x" } }, spec: { replicas: 3, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx" }] } } } },
    placement: { clusters: [{ name: "member1" }, { name: "member2" }] },
    overrides: [{ clusterName: "member2", clusterOverrides: [{ path: "/spec/replicas", value: 5 }, { path: "/metadata/annotations", op: "add", value: { foo: "bar" } }, { path: "/metadata/annotations/foo", op: "remove" }] }],
  });
  const items = convertKubefed([fedNs("shop", everywhere), deployment]);

  it("the template: the Federated object's name and namespace, the target kind, its labels without KubeFed's, marked for adoption; its annotations left out, as KubeFed never propagated them", () => {
    assert.deepEqual(objectOf(items, "Deployment"), {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "shop", labels: { app: "web" }, annotations: { "flotilla.dev/adopt": "kubefed" } },
      spec: (deployment.spec as { template: { spec: unknown } }).template.spec,
    });
  });

  it("the policy selects exactly that object, Duplicated, on the placement's clusters", () => {
    const p = objectOf(items, "PropagationPolicy") as PropagationPolicy;
    assert.deepEqual(p.metadata, { name: "web-deployment", namespace: "shop" });
    assert.deepEqual(p.spec.resourceSelectors, [{ apiVersion: "apps/v1", kind: "Deployment", name: "web" }]);
    assert.deepEqual(p.spec.placement?.replicaScheduling, { replicaSchedulingType: "Duplicated" });
    assert.deepEqual(placedIn(items), ["member1", "member2"]);
  });

  it("one override rule per cluster: op defaults to replace, add and remove kept, in order; a whole annotations map keeps the adoption mark", () => {
    const o = objectOf(items, "OverridePolicy");
    assert.deepEqual(o?.spec, {
      resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web" }],
      overrideRules: [{ targetCluster: { clusterNames: ["member2"] }, overriders: { plaintext: [{ path: "/spec/replicas", operator: "replace", value: 5 }, { path: "/metadata/annotations", operator: "add", value: { foo: "bar", "flotilla.dev/adopt": "kubefed" } }, { path: "/metadata/annotations/foo", operator: "remove" }] } }],
    });
    assert.deepEqual(problemsOf(items), ["template.metadata.annotations not carried over: KubeFed never propagated a template's annotations"]);
  });

  it("an image override also sets the pull policy the member defaulted for the new image (the control cluster defaulted the template's for the old one)", () => {
    const items = convertKubefed([fedNs("shop", everywhere), fed("FederatedDeployment", "d", {
      template: { spec: { template: { spec: { containers: [{ name: "a", image: "nginx" }, { name: "b", image: "busybox", imagePullPolicy: "Never" }], initContainers: [{ name: "i", image: "x:1" }] } } } },
      placement: everywhere,
      overrides: [{ clusterName: "member1", clusterOverrides: [
        { path: "/spec/template/spec/containers/0/image", value: "nginx:1.17.0-alpine" },
        { path: "/spec/template/spec/containers/1/image", value: "busybox:1" },
        { path: "/spec/template/spec/initContainers/0/image", value: "x" },
      ] }],
    })]);
    const plaintext = (objectOf(items, "OverridePolicy")?.spec as { overrideRules: { overriders: { plaintext: { path: string; value?: unknown }[] } }[] }).overrideRules[0]?.overriders.plaintext;
    assert.deepEqual(plaintext, [
      { path: "/spec/template/spec/containers/0/image", operator: "replace", value: "nginx:1.17.0-alpine" },
      { path: "/spec/template/spec/containers/0/imagePullPolicy", operator: "add", value: "IfNotPresent" },
      { path: "/spec/template/spec/containers/1/image", operator: "replace", value: "busybox:1" },
      { path: "/spec/template/spec/initContainers/0/image", operator: "replace", value: "x" },
      { path: "/spec/template/spec/initContainers/0/imagePullPolicy", operator: "add", value: "Always" },
    ], "each right after its image, before a later override moves the containers; the container that names its own policy keeps it");
    assert.deepEqual(problemsOf(items), []);
  });

  it("an override that is not add, remove or replace of a /path is a problem, the rest kept", () => {
    const bad = convertKubefed([fedNs("shop", everywhere), fed("FederatedConfigMap", "c", { template: { data: { a: "1" } }, placement: everywhere, overrides: [{ clusterName: "member1", clusterOverrides: [{ path: "data/a", value: "2" }, { path: "/data/a", op: "move", value: "2" }, { path: "/data/b", value: "3" }] }, { clusterOverrides: [] }] })]);
    assert.equal(problemsOf(bad).length, 3, problemsOf(bad).join("\n"));
    assert.deepEqual((objectOf(bad, "OverridePolicy")?.spec as { overrideRules: unknown[] }).overrideRules, [{ targetCluster: { clusterNames: ["member1"] }, overriders: { plaintext: [{ path: "/data/b", operator: "replace", value: "3" }] } }]);
  });

  it("removing the whole annotations map, or setting metadata, keeps the adoption mark", () => {
    const items = convertKubefed([fedNs("shop", everywhere), fed("FederatedConfigMap", "c", { template: { data: {} }, placement: everywhere, overrides: [{ clusterName: "member1", clusterOverrides: [{ path: "/metadata/annotations", op: "remove" }, { path: "/metadata", value: { labels: { a: "b" } } }] }] })]);
    const plaintext = (objectOf(items, "OverridePolicy")?.spec as { overrideRules: { overriders: { plaintext: unknown[] } }[] }).overrideRules[0]?.overriders.plaintext;
    assert.deepEqual(plaintext, [
      { path: "/metadata/annotations", operator: "replace", value: { "flotilla.dev/adopt": "kubefed" } },
      { path: "/metadata", operator: "replace", value: { labels: { a: "b" }, annotations: { "flotilla.dev/adopt": "kubefed" } } },
    ]);
  });

  it("malformed input is a problem line for that object, never a crash of the run", () => {
    const bad = [
      fed("FederatedConfigMap", "a", { template: { data: {} }, placement: { clusterSelector: { matchLabels: null } } }),
      fed("FederatedConfigMap", "b", { template: { data: {} }, placement: { clusterSelector: { matchExpressions: "x" } } }),
      fed("FederatedConfigMap", "c", { template: { data: {} }, placement: { clusters: "member1" } }),
      fed("FederatedConfigMap", "d", { template: "nope", placement: everywhere }),
      fed("FederatedIngress", "e", { template: { spec: { rules: [null, { http: { paths: [null] } }] } }, placement: everywhere }),
    ];
    const items = convertKubefed([fedNs("shop", everywhere), ...bad]);
    // An empty matchLabels (YAML `matchLabels:`) is no requirement, as in KubeFed: every cluster.
    assert.deepEqual(items.filter((i) => i.object === undefined).map((i) => i.source.name), ["b", "c", "d"]);
    assert.equal(objectOf(items, "Ingress")?.apiVersion, "networking.k8s.io/v1");
  });

  it("overrides KubeFed refused (a cluster twice, a path twice, the object's name) are listed, not carried over; a replace without a value writes null", () => {
    const items = convertKubefed([fedNs("shop", everywhere), fed("FederatedConfigMap", "c", { template: { data: { a: "1" } }, placement: everywhere, overrides: [
      { clusterName: "member1", clusterOverrides: [{ path: "/data/a" }, { path: "/data/a", value: "2" }, { path: "/metadata/name", value: "x" }] },
      { clusterName: "member1", clusterOverrides: [{ path: "/data/b", value: "3" }] },
    ] })]);
    assert.equal(problemsOf(items).length, 3, problemsOf(items).join("\n"));
    assert.deepEqual((objectOf(items, "OverridePolicy")?.spec as { overrideRules: unknown[] }).overrideRules, [{ targetCluster: { clusterNames: ["member1"] }, overriders: { plaintext: [{ path: "/data/a", operator: "replace", value: null }] } }]);
  });

  it("retainReplicas is listed: Flotilla keeps a member's replicas only under a member HPA", () => {
    assert.match(problemsOf(convertKubefed([fedNs("shop", everywhere), fed("FederatedDeployment", "d", { template: { spec: {} }, placement: everywhere, retainReplicas: true })])).join(), /retainReplicas/);
  });

  it("a FederatedNamespace not named as its namespace is ignored, as KubeFed does; a system namespace is not propagated but still bounds", () => {
    const misnamed = convertKubefed([{ ...fedNs("shop", everywhere), metadata: { name: "other", namespace: "shop" } }, fed("FederatedSecret", "s", { template: {}, placement: everywhere })]);
    assert.deepEqual(misnamed.map((i) => i.object), [undefined, undefined], "neither the misnamed namespace nor what is in it is written");
    const system = convertKubefed([fedNs("default", { clusters: [{ name: "member2" }] }), fed("FederatedSecret", "s", { template: {}, placement: everywhere }, "default")]);
    assert.equal(objectOf(system, "Namespace"), undefined);
    assert.deepEqual(placedIn(system), ["member2"]);
  });

  it("a policy that places nowhere is marked so the run writes it only where none exists (a missing input never empties a running placement)", () => {
    const items = convertKubefed([fedNs("shop", everywhere), fed("FederatedSecret", "s", { template: { data: {} } }), fed("FederatedSecret", "t", { template: { data: {} }, placement: everywhere })]);
    const policies = items.filter((i) => i.object?.kind === "PropagationPolicy");
    assert.deepEqual(policies.map((i) => [i.object?.metadata.name, i.placesNowhere]), [["s-secret", true], ["t-secret", undefined]]);
  });

  it("no placement places it nowhere (Flotilla's default would be everywhere)", () => {
    assert.deepEqual(placedIn(convertKubefed([fedNs("shop", everywhere), fed("FederatedSecret", "s", { template: { data: {} } })])), []);
  });

  it("the namespace's placement bounds it; without its FederatedNamespace in the input nothing is written (a policy an earlier run wrote stays), and it says why", () => {
    assert.deepEqual(placedIn(convertKubefed([fedNs("shop", { clusters: [{ name: "member2" }, { name: "member3" }] }), deployment])), ["member2"]);
    const orphan = convertKubefed([deployment]);
    assert.deepEqual(orphan.map((i) => i.object), [undefined], "no template, no policy: a missing input empties no placement");
    assert.match(problemsOf(orphan).join(), /no FederatedNamespace for shop/);
  });

  it("a cluster-scoped kind: ClusterPropagationPolicy and ClusterOverridePolicy, no namespace bound", () => {
    const role = convertKubefed([fed("FederatedClusterRole", "r", { template: { rules: [] }, placement: { clusterSelector: { matchLabels: { region: "eu" } } }, overrides: [{ clusterName: "member1", clusterOverrides: [{ path: "/rules", value: [] }] }] }, undefined)]);
    assert.deepEqual(objectOf(role, "ClusterRole")?.metadata, { name: "r", annotations: { "flotilla.dev/adopt": "kubefed" } });
    assert.equal(objectOf(role, "ClusterRole")?.apiVersion, "rbac.authorization.k8s.io/v1");
    assert.deepEqual(placedIn(role), ["member1", "member3"]);
    assert.ok(objectOf(role, "ClusterOverridePolicy") !== undefined);
  });

  it("a FederatedTypeConfig names the target of a Federated CRD kind; without one it is a problem", () => {
    const ftc: KubeObject = { apiVersion: "core.kubefed.io/v1beta1", kind: "FederatedTypeConfig", metadata: { name: "widgets.example.com", namespace: "kube-federation-system" }, spec: { federatedType: { kind: "FederatedWidget" }, targetType: { group: "example.com", version: "v2", kind: "Widget", scope: "Namespaced" } } };
    const widget = fed("FederatedWidget", "w", { template: { spec: { size: 1 } }, placement: everywhere });
    assert.equal(objectOf(convertKubefed([ftc, fedNs("shop", everywhere), widget]), "Widget")?.apiVersion, "example.com/v2");
    const unknown = convertKubefed([fedNs("shop", everywhere), widget]);
    assert.equal(objectOf(unknown, "Widget"), undefined);
    assert.match(problemsOf(unknown).join(), /FederatedTypeConfig/);
  });

  it("KubeFed's sample Ingress (serviceName/servicePort) becomes networking.k8s.io/v1", () => {
    const ingress = convertKubefed([fedNs("shop", everywhere), fed("FederatedIngress", "i", { template: { spec: { backend: { serviceName: "d", servicePort: "http" }, rules: [{ host: "a.example", http: { paths: [{ backend: { serviceName: "s", servicePort: 80 } }] } }] } }, placement: everywhere })]);
    assert.deepEqual(objectOf(ingress, "Ingress")?.spec, {
      defaultBackend: { service: { name: "d", port: { name: "http" } } },
      rules: [{ host: "a.example", http: { paths: [{ pathType: "ImplementationSpecific", backend: { service: { name: "s", port: { number: 80 } } } }] } }],
    });
    assert.equal(objectOf(ingress, "Ingress")?.apiVersion, "networking.k8s.io/v1");
  });

  it("a template at a removed version that is not converted is a problem, never dropped silently", () => {
    const hpa = convertKubefed([fedNs("shop", everywhere), fed("FederatedHorizontalPodAutoscaler", "h", { template: { apiVersion: "autoscaling/v2beta1", spec: {} }, placement: everywhere })]);
    assert.match(problemsOf(hpa).join(), /autoscaling\/v2beta1 is no longer served/);
    assert.ok(objectOf(hpa, "HorizontalPodAutoscaler") !== undefined);
  });
});

describe("defaultPullPolicy", () => {
  const DIGEST = `sha256:${"ab".repeat(32)}`;
  const cases: [string, string][] = [["nginx", "Always"], ["nginx:latest", "Always"], ["nginx:1.17.0-alpine", "IfNotPresent"], ["registry:5000/team/app", "Always"], ["registry:5000/team/app:v2", "IfNotPresent"], ["app@" + DIGEST, "IfNotPresent"], ["app:latest@" + DIGEST, "Always"], ["registry:5000/app@" + DIGEST, "IfNotPresent"], ["Not An Image", "IfNotPresent"]];
  for (const [image, want] of cases) it(`${image}: ${want}`, () => assert.equal(defaultPullPolicy(image), want));
});

describe("convertKubefed: ReplicaSchedulingPreference", () => {
  const rsp = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: "scheduling.kubefed.io/v1alpha1", kind: "ReplicaSchedulingPreference", metadata: { name: "web", namespace: "shop" }, spec: { targetKind: "FederatedDeployment", ...spec } });
  const deployment = fed("FederatedDeployment", "web", { template: { spec: { replicas: 3 } }, placement: { clusters: [{ name: "member3" }] }, overrides: [{ clusterName: "member1", clusterOverrides: [{ path: "/spec/replicas", value: 7 }, { path: "/spec/paused", value: true }] }] });

  it("totalReplicas replaces the template's; the weights divide them; the object's own clusters give way; replicas overrides go", () => {
    const items = convertKubefed([fedNs("shop", everywhere), deployment, rsp({ totalReplicas: 10, rebalance: true, clusters: { member1: { weight: 2 }, member2: { weight: 3, maxReplicas: 8 } } })]);
    assert.equal((objectOf(items, "Deployment")?.spec as { replicas: number }).replicas, 10);
    assert.deepEqual(placedIn(items), ["member1", "member2"]);
    const scheduling = (objectOf(items, "PropagationPolicy") as PropagationPolicy).spec.placement?.replicaScheduling;
    assert.equal(scheduling?.replicaSchedulingType, "Divided");
    assert.equal(scheduling?.rebalance, true);
    assert.deepEqual(scheduling?.weightPreference?.staticWeightList?.[1], { targetCluster: { clusterNames: ["member2"] }, weight: 3, maxReplicas: 8 });
    assert.deepEqual((objectOf(items, "OverridePolicy")?.spec as { overrideRules: { overriders: { plaintext: unknown[] } }[] }).overrideRules[0]?.overriders.plaintext, [{ path: "/spec/paused", operator: "replace", value: true }]);
    assert.match(problemsOf(items).join(), /\/spec\/replicas not carried over/);
  });

  it('"*" places it everywhere its namespace is; intersectWithClusterSelector keeps its own clusters', () => {
    assert.deepEqual(placedIn(convertKubefed([fedNs("shop", { clusters: [{ name: "member1" }, { name: "member3" }] }), deployment, rsp({ totalReplicas: 4, clusters: { "*": { weight: 1, minReplicas: 1, maxReplicas: 3 } } })])), ["member1", "member3"]);
    assert.deepEqual(placedIn(convertKubefed([fedNs("shop", everywhere), deployment, rsp({ intersectWithClusterSelector: true, clusters: { "*": { weight: 1 } } })])), ["member3"]);
  });

  it("no clusters in the preference spread it over every cluster with equal weights, as KubeFed does", () => {
    const items = convertKubefed([fedNs("shop", everywhere), deployment, rsp({ totalReplicas: 4 })]);
    assert.deepEqual(placedIn(items), ["member1", "member2", "member3"]);
    assert.deepEqual((objectOf(items, "PropagationPolicy") as PropagationPolicy).spec.placement?.replicaScheduling?.weightPreference?.staticWeightList, [{ targetCluster: {}, weight: 1 }]);
  });

  it("a minimum above its maximum is capped, and said", () => {
    const items = convertKubefed([fedNs("shop", everywhere), deployment, rsp({ totalReplicas: 10, clusters: { member1: { weight: 1, minReplicas: 5, maxReplicas: 3 }, member2: { weight: 1 } } })]);
    assert.deepEqual((objectOf(items, "PropagationPolicy") as PropagationPolicy).spec.placement?.replicaScheduling?.weightPreference?.staticWeightList?.[0], { targetCluster: { clusterNames: ["member1"] }, weight: 1, minReplicas: 3, maxReplicas: 3 });
    assert.match(problemsOf(items).join(), /minReplicas 5 above maxReplicas 3/);
  });

  it("intersectWithClusterSelector reads the object's selector only; without one KubeFed's scheduler leaves the object as it is", () => {
    const own = fed("FederatedDeployment", "web", { template: { spec: { replicas: 3 } }, placement: { clusters: [{ name: "member1" }, { name: "member2" }] }, overrides: [{ clusterName: "member1", clusterOverrides: [{ path: "/spec/replicas", value: 7 }] }] });
    const items = convertKubefed([fedNs("shop", everywhere), own, rsp({ intersectWithClusterSelector: true, totalReplicas: 4, clusters: { "*": { weight: 1 } } })]);
    assert.deepEqual(placedIn(items), ["member1", "member2"]);
    assert.equal((objectOf(items, "Deployment")?.spec as { replicas: number }).replicas, 3);
    assert.equal((objectOf(items, "PropagationPolicy") as PropagationPolicy).spec.placement?.replicaScheduling?.replicaSchedulingType, "Duplicated");
    assert.ok(objectOf(items, "OverridePolicy") !== undefined, "its /spec/replicas override stays");
  });

  it("where KubeFed's scheduler wrote its replicas, adopting says which would change", () => {
    const written = fed("FederatedDeployment", "web", { template: { spec: { replicas: 6 } }, placement: { clusters: [{ name: "member1" }, { name: "member2" }] }, overrides: [{ clusterName: "member1", clusterOverrides: [{ path: "/spec/replicas", value: 6 }] }, { clusterName: "member2", clusterOverrides: [{ path: "/spec/replicas", value: 0 }] }] });
    assert.match(problemsOf(convertKubefed([fedNs("shop", everywhere), written, rsp({ totalReplicas: 6, clusters: { member1: { weight: 1 }, member2: { weight: 1 } } })])).join(), /adopting changes the replicas KubeFed's scheduler set \(member1 6 → 3, member2 0 → 3\)/);
    const same = { ...written, spec: { ...(written.spec as object), overrides: [{ clusterName: "member1", clusterOverrides: [{ path: "/spec/replicas", value: 3 }] }, { clusterName: "member2", clusterOverrides: [{ path: "/spec/replicas", value: 3 }] }] } };
    assert.doesNotMatch(problemsOf(convertKubefed([fedNs("shop", everywhere), same, rsp({ totalReplicas: 6, clusters: { member1: { weight: 1 }, member2: { weight: 1 } } })])).join(), /adopting changes/);
  });

  it("a namespace that leaves out a cluster the preference gives replicas to is said; one that holds them all is not", () => {
    const spread = rsp({ totalReplicas: 6, clusters: { member1: { weight: 1 }, member2: { weight: 1 } } });
    assert.match(problemsOf(convertKubefed([fedNs("shop", { clusters: [{ name: "member1" }] }), deployment, spread])).join(), /drops the shares outside the namespace/);
    assert.doesNotMatch(problemsOf(convertKubefed([fedNs("shop", { clusters: [{ name: "member1" }, { name: "member2" }] }), deployment, spread])).join(), /drops the shares/);
  });

  it("a preference whose target is not in the input is listed, not dropped", () => {
    const items = convertKubefed([rsp({ totalReplicas: 2 })]);
    assert.equal(items.length, 1);
    assert.match(items[0]?.problems.join() ?? "", /not in the input/);
  });

  it("a preference for another kind than its target's does not apply", () => {
    const items = convertKubefed([fedNs("shop", everywhere), deployment, { ...rsp({ totalReplicas: 9 }), spec: { targetKind: "FederatedReplicaSet", totalReplicas: 9 } }]);
    assert.equal((objectOf(items, "Deployment")?.spec as { replicas: number }).replicas, 3);
  });
});

describe("convertKubefed: FederatedNamespace, DNS, KubeFed's own kinds and plain objects", () => {
  it("a FederatedNamespace: the Namespace, marked for adoption, and a ClusterPropagationPolicy with its placement", () => {
    const items = convertKubefed([fedNs("shop", { clusterSelector: { matchLabels: { region: "eu" } } })]);
    assert.deepEqual(objectOf(items, "Namespace"), { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop", annotations: { "flotilla.dev/adopt": "kubefed" } } });
    assert.equal(objectOf(items, "ClusterPropagationPolicy")?.metadata.name, "shop-namespace");
    assert.deepEqual(placedIn(items), ["member1", "member3"]);
  });

  it("a plain Namespace its FederatedNamespace carries is not written twice; another plain object is listed as not KubeFed's", () => {
    const items = convertKubefed([fedNs("shop", everywhere), { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } }, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "shop" } }]);
    assert.equal(items.filter((i) => i.object?.kind === "Namespace").length, 1);
    assert.equal(items.filter((i) => i.object === undefined).length, 2);
  });

  it("DNS records move to Flotilla's group; a Domain loses its namespace", () => {
    const items = convertKubefed([
      { apiVersion: "multiclusterdns.kubefed.io/v1alpha1", kind: "Domain", metadata: { name: "d", namespace: "kube-federation-system" }, domain: "example.com" } as KubeObject,
      { apiVersion: "multiclusterdns.kubefed.io/v1alpha1", kind: "ServiceDNSRecord", metadata: { name: "s", namespace: "shop" }, spec: { domainRef: "d" }, status: {} } as KubeObject,
    ]);
    assert.deepEqual(items.map((i) => [i.object?.apiVersion, i.object?.metadata.namespace]), [["multiclusterdns.flotilla.dev/v1alpha1", undefined], ["multiclusterdns.flotilla.dev/v1alpha1", "shop"]]);
    assert.equal((items[0]?.object as unknown as { domain: string }).domain, "example.com");
  });

  it("KubeFedCluster, KubeFedConfig and FederatedTypeConfig are not carried over, each with why", () => {
    const items = convertKubefed(["KubeFedCluster", "KubeFedConfig", "FederatedTypeConfig"].map((kind) => ({ apiVersion: "core.kubefed.io/v1beta1", kind, metadata: { name: "x", namespace: "kube-federation-system" } })));
    assert.deepEqual(items.map((i) => i.object), [undefined, undefined, undefined]);
    assert.match(items[0]?.problems.join() ?? "", /agent/);
  });
});

describe("convertKubefed: Federation v1's annotations", () => {
  const v1 = (kind: string, annotations: Record<string, string>, spec: Record<string, unknown> = {}): KubeObject => ({ apiVersion: kind === "ConfigMap" ? "v1" : "extensions/v1beta1", kind, metadata: { name: "a", namespace: "shop", annotations: { keep: "me", ...annotations } }, spec });

  it("cluster-selector places by labels; the annotations leave the template", () => {
    const items = convertKubefed([v1("ConfigMap", { "federation.alpha.kubernetes.io/cluster-selector": '[{"key":"region","operator":"in","values":["eu"]}]' })]);
    assert.deepEqual(placedIn(items), ["member1", "member3"]);
    assert.deepEqual(objectOf(items, "ConfigMap")?.metadata.annotations, { keep: "me" });
  });

  it("a selector that does not parse places it nowhere, and says so", () => {
    const items = convertKubefed([v1("ConfigMap", { "federation.alpha.kubernetes.io/cluster-selector": "region=eu" })]);
    assert.deepEqual(placedIn(items), []);
    assert.match(problemsOf(items).join(), /not JSON/);
  });

  it("replica-set-preferences divide a Deployment (moved to apps/v1, with the selector its beta defaulted)", () => {
    const items = convertKubefed([v1("Deployment", { "federation.kubernetes.io/replica-set-preferences": '{"rebalance":true,"clusters":{"member2":{"weight":1},"*":{"weight":2}}}' }, { replicas: 6, template: { metadata: { labels: { app: "a" } } } })]);
    const d = objectOf(items, "Deployment");
    assert.equal(d?.apiVersion, "apps/v1");
    assert.deepEqual((d?.spec as { selector: unknown }).selector, { matchLabels: { app: "a" } });
    const scheduling = (objectOf(items, "PropagationPolicy") as PropagationPolicy).spec.placement?.replicaScheduling;
    assert.deepEqual(scheduling?.weightPreference?.staticWeightList, [{ targetCluster: { clusterNames: ["member2"] }, weight: 1 }, { targetCluster: {}, weight: 2 }]);
    assert.deepEqual(placedIn(items), ["member1", "member2", "member3"]);
  });

  it("a Deployment without preferences is spread equally, as Federation v1 did", () => {
    const items = convertKubefed([v1("Deployment", { "federation.alpha.kubernetes.io/cluster-selector": "[]" }, { replicas: 3 })]);
    assert.deepEqual((objectOf(items, "PropagationPolicy") as PropagationPolicy).spec.placement?.replicaScheduling?.weightPreference?.staticWeightList, [{ targetCluster: {}, weight: 1 }]);
  });
});
