import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster, ClusterSpec, KubeObject, OverridePolicy, Overriders, ResourceSelector, RuleWithCluster } from "../../shared/api/types.ts";
import { formatImage, type ImageReference, parseImage } from "./image-reference.ts";
import { applyOverrides, orderOverridePolicies, overridePolicyMatches } from "./overrides.ts";

const DIGEST = "sha256:" + "ab".repeat(32);

function cluster(name: string, labels: Record<string, string> = {}, spec: ClusterSpec = {}): Cluster {
  return { apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name, labels }, spec };
}

const member1 = cluster("member1", { env: "prod" }, { provider: "aws", region: "us-east-1" });
const member2 = cluster("member2", { env: "dev" }, { provider: "gcp", region: "europe-west1" });

function op(namespace: string, name: string, rules: RuleWithCluster[], resourceSelectors?: ResourceSelector[]): OverridePolicy {
  return {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "OverridePolicy",
    metadata: { namespace, name },
    spec: { ...(resourceSelectors ? { resourceSelectors } : {}), overrideRules: rules },
  };
}

function cop(name: string, rules: RuleWithCluster[], resourceSelectors?: ResourceSelector[]): OverridePolicy {
  return {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "ClusterOverridePolicy",
    metadata: { name },
    spec: { ...(resourceSelectors ? { resourceSelectors } : {}), overrideRules: rules },
  };
}

/** One policy default/web with one rule for every cluster. */
function rule(overriders: Overriders): OverridePolicy[] {
  return [op("default", "web", [{ overriders }])];
}

function podSpec(): Record<string, unknown> {
  return {
    initContainers: [{ name: "init", image: `docker.io/library/busybox@${DIGEST}` }],
    containers: [
      { name: "web", image: "nginx:1.25", command: ["nginx"], args: ["-g", "daemon off;"] },
      { name: "sidecar", image: "registry.k8s.io/pause:3.9" },
    ],
  };
}

function deployment(): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { namespace: "default", name: "web", labels: { app: "web" }, annotations: { note: "a" } },
    spec: { replicas: 3, template: { metadata: { labels: { app: "web" } }, spec: podSpec() } },
  };
}

function pod(): KubeObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { namespace: "default", name: "p" }, spec: podSpec() };
}

function cronJob(): KubeObject {
  return {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { namespace: "default", name: "c" },
    spec: { schedule: "* * * * *", jobTemplate: { spec: { template: { spec: podSpec() } } } },
  };
}

function configMap(): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { namespace: "default", name: "cm" }, data: { image: "nginx:1.25" } };
}

/** The value at a JSON pointer, undefined when absent. */
function at(obj: unknown, pointer: string): unknown {
  let node = obj;
  for (const token of pointer.split("/").slice(1).map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"))) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, token)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

const DEPLOY = "/spec/template/spec";
const WEB = `${DEPLOY}/containers/0`;
const SIDECAR = `${DEPLOY}/containers/1`;
const INIT = `${DEPLOY}/initContainers/0`;

interface OkCase {
  name: string;
  obj?: KubeObject;
  cluster?: Cluster;
  policies: OverridePolicy[];
  /** JSON pointer → expected value (undefined: absent). */
  want: Record<string, unknown>;
  applied?: string[];
}

function runOkCases(cases: OkCase[]): void {
  for (const c of cases) {
    it(c.name, () => {
      const result = applyOverrides(c.obj ?? deployment(), c.cluster ?? member1, c.policies);
      assert.ok(result.ok, result.ok ? "" : result.message);
      for (const [pointer, value] of Object.entries(c.want)) assert.deepEqual(at(result.object, pointer), value, pointer);
      if (c.applied) assert.deepEqual(result.applied, c.applied);
    });
  }
}

interface FailCase {
  name: string;
  obj?: KubeObject;
  cluster?: Cluster;
  policies: OverridePolicy[];
  message: string;
}

function runFailCases(cases: FailCase[]): void {
  for (const c of cases) {
    it(c.name, () => {
      const result = applyOverrides(c.obj ?? deployment(), c.cluster ?? member1, c.policies);
      assert.deepEqual(result, { ok: false, message: c.message });
    });
  }
}

describe("parseImage / formatImage", () => {
  const cases: { name: string; image: string; want: ImageReference | undefined }[] = [
    { name: "bare repository", image: "nginx", want: { registry: "", repository: "nginx", tag: "", digest: "" } },
    { name: "repository and tag", image: "nginx:1.25", want: { registry: "", repository: "nginx", tag: "1.25", digest: "" } },
    { name: "a first segment without . or : is part of the repository", image: "library/nginx:1.25", want: { registry: "", repository: "library/nginx", tag: "1.25", digest: "" } },
    { name: "registry with a dot", image: "registry.k8s.io/kube-apiserver:v1.19.1", want: { registry: "registry.k8s.io", repository: "kube-apiserver", tag: "v1.19.1", digest: "" } },
    { name: "registry with a port and a nested repository", image: "fictional.registry.example:10443/karmada/controller:v1.0.0", want: { registry: "fictional.registry.example:10443", repository: "karmada/controller", tag: "v1.0.0", digest: "" } },
    { name: "localhost is a registry", image: "localhost/app", want: { registry: "localhost", repository: "app", tag: "", digest: "" } },
    { name: "host:port without a dot is a registry", image: "myhost:5000/app:1", want: { registry: "myhost:5000", repository: "app", tag: "1", digest: "" } },
    { name: "digest", image: `nginx@${DIGEST}`, want: { registry: "", repository: "nginx", tag: "", digest: DIGEST } },
    { name: "tag and digest are both kept", image: `nginx:1.25@${DIGEST}`, want: { registry: "", repository: "nginx", tag: "1.25", digest: DIGEST } },
    { name: "uppercase repository is invalid", image: "Nginx", want: undefined },
    { name: "empty string is invalid", image: "", want: undefined },
    { name: "empty tag is invalid", image: "nginx:", want: undefined },
    { name: "space is invalid", image: "nginx 1", want: undefined },
    { name: "short digest is invalid", image: "nginx@sha256:abc", want: undefined },
    { name: "empty repository after the registry is invalid", image: "registry.io/:1", want: undefined },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = parseImage(c.image);
      assert.deepEqual(got, c.want);
      if (got !== undefined) assert.equal(formatImage(got), c.image);
    });
  }
});

describe("overridePolicyMatches", () => {
  const web = deployment();
  const other: KubeObject = { ...deployment(), metadata: { namespace: "shop", name: "web", labels: { app: "web" } } };
  const clusterRole: KubeObject = { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "reader" } };
  const byKind: ResourceSelector = { apiVersion: "apps/v1", kind: "Deployment" };
  const cases: { name: string; policy: OverridePolicy; template: KubeObject; want: boolean }[] = [
    { name: "OverridePolicy without selectors: a template in its namespace", policy: op("default", "p", []), template: web, want: true },
    { name: "OverridePolicy without selectors: not another namespace", policy: op("default", "p", []), template: other, want: false },
    { name: "OverridePolicy never matches a cluster-scoped template", policy: op("default", "p", []), template: clusterRole, want: false },
    { name: "OverridePolicy with an empty selector list is in scope like none", policy: op("default", "p", [], []), template: web, want: true },
    { name: "ClusterOverridePolicy without selectors: any namespace", policy: cop("c", []), template: other, want: true },
    { name: "ClusterOverridePolicy without selectors: cluster-scoped templates", policy: cop("c", []), template: clusterRole, want: true },
    { name: "selector by kind", policy: op("default", "p", [], [byKind]), template: web, want: true },
    { name: "selector by another kind", policy: op("default", "p", [], [{ apiVersion: "apps/v1", kind: "StatefulSet" }]), template: web, want: false },
    { name: "selector by another apiVersion", policy: op("default", "p", [], [{ apiVersion: "apps/v1beta1", kind: "Deployment" }]), template: web, want: false },
    { name: "selector by name", policy: op("default", "p", [], [{ ...byKind, name: "web" }]), template: web, want: true },
    { name: "selector by another name", policy: op("default", "p", [], [{ ...byKind, name: "api" }]), template: web, want: false },
    { name: "selector by labels", policy: op("default", "p", [], [{ ...byKind, labelSelector: { matchLabels: { app: "web" } } }]), template: web, want: true },
    { name: "selector by labels that do not match", policy: op("default", "p", [], [{ ...byKind, labelSelector: { matchLabels: { app: "api" } } }]), template: web, want: false },
    { name: "any one selector is enough", policy: op("default", "p", [], [{ ...byKind, name: "api" }, byKind]), template: web, want: true },
    { name: "OverridePolicy selector naming another namespace selects nothing", policy: op("default", "p", [], [{ ...byKind, namespace: "shop" }]), template: other, want: false },
    { name: "ClusterOverridePolicy selector by namespace", policy: cop("c", [], [{ ...byKind, namespace: "shop" }]), template: other, want: true },
    { name: "ClusterOverridePolicy selector by another namespace", policy: cop("c", [], [{ ...byKind, namespace: "shop" }]), template: web, want: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(overridePolicyMatches(c.policy, c.template), c.want);
    });
  }
});

describe("orderOverridePolicies", () => {
  it("puts ClusterOverridePolicy first, then namespace, then name, without touching the input", () => {
    const input = [op("shop", "a", []), cop("z", []), op("default", "b", []), cop("a", []), op("default", "a", [])];
    const before = structuredClone(input);
    const got = orderOverridePolicies(input).map((p) => `${p.kind}/${p.metadata.namespace ?? ""}/${p.metadata.name}`);
    assert.deepEqual(got, [
      "ClusterOverridePolicy//a",
      "ClusterOverridePolicy//z",
      "OverridePolicy/default/a",
      "OverridePolicy/default/b",
      "OverridePolicy/shop/a",
    ]);
    assert.deepEqual(input, before);
  });
});

describe("applyOverrides: plaintext", () => {
  runOkCases([
    { name: "replace a field", policies: rule({ plaintext: [{ path: "/spec/replicas", operator: "replace", value: 5 }] }), want: { "/spec/replicas": 5 } },
    { name: "operator defaults to replace", policies: rule({ plaintext: [{ path: "/spec/replicas", value: 7 }] }), want: { "/spec/replicas": 7 } },
    { name: "add a new field", policies: rule({ plaintext: [{ path: `${WEB}/env`, operator: "add", value: [{ name: "REGION", value: "us" }] }] }), want: { [`${WEB}/env`]: [{ name: "REGION", value: "us" }] } },
    { name: "add replaces an existing member", policies: rule({ plaintext: [{ path: "/spec/replicas", operator: "add", value: 1 }] }), want: { "/spec/replicas": 1 } },
    { name: "add at array index 0 inserts first", policies: rule({ plaintext: [{ path: `${WEB}/args/0`, operator: "add", value: "-q" }] }), want: { [`${WEB}/args`]: ["-q", "-g", "daemon off;"] } },
    { name: "add at - appends", policies: rule({ plaintext: [{ path: `${WEB}/args/-`, operator: "add", value: "-q" }] }), want: { [`${WEB}/args`]: ["-g", "daemon off;", "-q"] } },
    { name: "replace an array element by index", policies: rule({ plaintext: [{ path: `${WEB}/args/1`, value: "daemon on;" }] }), want: { [`${WEB}/args`]: ["-g", "daemon on;"] } },
    { name: "remove a field", policies: rule({ plaintext: [{ path: "/metadata/annotations/note", operator: "remove" }] }), want: { "/metadata/annotations": {} } },
    { name: "remove ignores value", policies: rule({ plaintext: [{ path: "/spec/replicas", operator: "remove", value: 9 }] }), want: { "/spec/replicas": undefined } },
    { name: "~1 escapes a slash in a key", policies: rule({ plaintext: [{ path: "/metadata/labels/example.com~1team", operator: "add", value: "a" }] }), want: { "/metadata/labels": { app: "web", "example.com/team": "a" } } },
    {
      name: "operations run in order, each on the result of the one before",
      policies: rule({ plaintext: [{ path: "/spec/paused", operator: "add", value: true }, { path: "/spec/paused", value: false }] }),
      want: { "/spec/paused": false },
    },
  ]);
  runFailCases([
    {
      name: "a path that does not exist fails with the policy, rule and overrider",
      policies: rule({ plaintext: [{ path: "/spec/replicas", value: 2 }, { path: "/spec/replicaz", operator: "replace", value: 2 }] }),
      message: "OverridePolicy default/web rule 0 plaintext[1]: path /spec/replicaz does not exist",
    },
    { name: "remove of something absent fails", policies: rule({ plaintext: [{ path: "/spec/paused", operator: "remove" }] }), message: "OverridePolicy default/web rule 0 plaintext[0]: path /spec/paused does not exist" },
    { name: "add under a missing parent fails", policies: rule({ plaintext: [{ path: "/spec/strategy/type", operator: "add", value: "Recreate" }] }), message: "OverridePolicy default/web rule 0 plaintext[0]: cannot add at /spec/strategy/type: its parent does not exist" },
    { name: "add past the end of an array fails", policies: rule({ plaintext: [{ path: `${WEB}/args/5`, operator: "add", value: "x" }] }), message: `OverridePolicy default/web rule 0 plaintext[0]: cannot add at ${WEB}/args/5: array index out of bounds` },
    { name: "a path without a leading slash fails", policies: rule({ plaintext: [{ path: "spec/replicas", value: 1 }] }), message: 'OverridePolicy default/web rule 0 plaintext[0]: path "spec/replicas" must start with "/"' },
    { name: "an empty path fails (it would replace the whole object)", policies: rule({ plaintext: [{ path: "", value: {} }] }), message: 'OverridePolicy default/web rule 0 plaintext[0]: path "" must start with "/"' },
    { name: "add without a value fails", policies: rule({ plaintext: [{ path: "/spec/paused", operator: "add" }] }), message: "OverridePolicy default/web rule 0 plaintext[0]: add at /spec/paused needs a value" },
    { name: "an unknown operator fails", policies: rule({ plaintext: [{ path: "/spec/replicas", operator: "test" as "add", value: 3 }] }), message: 'OverridePolicy default/web rule 0 plaintext[0]: unknown operator "test"' },
    { name: "modifying __proto__ fails", policies: rule({ plaintext: [{ path: "/__proto__/polluted", operator: "add", value: 1 }] }), message: "OverridePolicy default/web rule 0 plaintext[0]: path /__proto__/polluted may not modify __proto__ or constructor/prototype" },
  ]);
});

describe("applyOverrides: imageOverrider", () => {
  const all = (web: string, sidecar: string, init: string): Record<string, unknown> => ({ [`${WEB}/image`]: web, [`${SIDECAR}/image`]: sidecar, [`${INIT}/image`]: init });
  const busybox = `docker.io/library/busybox@${DIGEST}`;
  runOkCases([
    { name: "Registry add appends to the registry", policies: rule({ imageOverrider: [{ predicate: { path: `${SIDECAR}/image` }, component: "Registry", operator: "add", value: "-cn" }] }), want: all("nginx:1.25", "registry.k8s.io-cn/pause:3.9", busybox) },
    { name: "Registry add on an image without a registry sets one", policies: rule({ imageOverrider: [{ predicate: { path: `${WEB}/image` }, component: "Registry", operator: "add", value: "mirror.io" }] }), want: all("mirror.io/nginx:1.25", "registry.k8s.io/pause:3.9", busybox) },
    { name: "Registry replace changes every container and initContainer", policies: rule({ imageOverrider: [{ component: "Registry", operator: "replace", value: "mirror.example:5000" }] }), want: all("mirror.example:5000/nginx:1.25", "mirror.example:5000/pause:3.9", `mirror.example:5000/library/busybox@${DIGEST}`) },
    { name: "Registry remove", policies: rule({ imageOverrider: [{ component: "Registry", operator: "remove" }] }), want: all("nginx:1.25", "pause:3.9", `library/busybox@${DIGEST}`) },
    { name: "Repository add", policies: rule({ imageOverrider: [{ component: "Repository", operator: "add", value: "-debug" }] }), want: all("nginx-debug:1.25", "registry.k8s.io/pause-debug:3.9", `docker.io/library/busybox-debug@${DIGEST}`) },
    { name: "Repository replace keeps registry and tag", policies: rule({ imageOverrider: [{ component: "Repository", operator: "replace", value: "team/app" }] }), want: all("team/app:1.25", "registry.k8s.io/team/app:3.9", `docker.io/team/app@${DIGEST}`) },
    { name: "Tag add appends to the tag", policies: rule({ imageOverrider: [{ predicate: { path: `${WEB}/image` }, component: "Tag", operator: "add", value: "-alpine" }] }), want: all("nginx:1.25-alpine", "registry.k8s.io/pause:3.9", busybox) },
    { name: "Tag replace with a tag drops a digest", policies: rule({ imageOverrider: [{ component: "Tag", operator: "replace", value: "v2" }] }), want: all("nginx:v2", "registry.k8s.io/pause:v2", "docker.io/library/busybox:v2") },
    { name: "Tag replace with a digest drops the tag", policies: rule({ imageOverrider: [{ component: "Tag", operator: "replace", value: DIGEST }] }), want: all(`nginx@${DIGEST}`, `registry.k8s.io/pause@${DIGEST}`, busybox) },
    { name: "Tag remove drops the tag, or the digest when there is no tag", policies: rule({ imageOverrider: [{ component: "Tag", operator: "remove" }] }), want: all("nginx", "registry.k8s.io/pause", "docker.io/library/busybox") },
    { name: "predicate.path changes that image only", policies: rule({ imageOverrider: [{ predicate: { path: `${SIDECAR}/image` }, component: "Registry", operator: "replace", value: "mirror.io" }] }), want: all("nginx:1.25", "mirror.io/pause:3.9", busybox) },
    { name: "predicate.path works on any kind", obj: configMap(), policies: rule({ imageOverrider: [{ predicate: { path: "/data/image" }, component: "Tag", operator: "replace", value: "2" }] }), want: { "/data/image": "nginx:2" } },
    { name: "Pod: containers under /spec", obj: pod(), policies: rule({ imageOverrider: [{ component: "Tag", operator: "replace", value: "v2" }] }), want: { "/spec/containers/0/image": "nginx:v2", "/spec/initContainers/0/image": "docker.io/library/busybox:v2" } },
    { name: "CronJob: containers under the job template", obj: cronJob(), policies: rule({ imageOverrider: [{ component: "Registry", operator: "replace", value: "mirror.io" }] }), want: { "/spec/jobTemplate/spec/template/spec/containers/1/image": "mirror.io/pause:3.9" } },
    { name: "a kind without a pod template and no predicate is left as it is", obj: configMap(), policies: rule({ imageOverrider: [{ component: "Tag", operator: "replace", value: "2" }] }), want: { "/data/image": "nginx:1.25" }, applied: ["OverridePolicy/default/web rule 0"] },
    {
      name: "overriders of one kind run in order",
      policies: rule({ imageOverrider: [{ component: "Registry", operator: "replace", value: "a.io" }, { component: "Registry", operator: "add", value: ":5000" }] }),
      want: all("a.io:5000/nginx:1.25", "a.io:5000/pause:3.9", `a.io:5000/library/busybox@${DIGEST}`),
    },
  ]);
  const broken = deployment();
  ((broken.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[1] as { image: string }).image = "Bad Image";
  runFailCases([
    { name: "a malformed image fails", obj: broken, policies: rule({ imageOverrider: [{ component: "Tag", operator: "replace", value: "v2" }] }), message: 'OverridePolicy default/web rule 0 imageOverrider[0]: image "Bad Image" is not a valid image reference' },
    { name: "a tag value that is neither tag nor digest fails", policies: rule({ imageOverrider: [{ component: "Tag", operator: "replace", value: "not a tag" }] }), message: 'OverridePolicy default/web rule 0 imageOverrider[0]: "not a tag" is neither an image tag nor a digest' },
    { name: "Registry add that leaves an invalid image fails", policies: rule({ imageOverrider: [{ component: "Registry", operator: "add", value: "-cn" }] }), message: 'OverridePolicy default/web rule 0 imageOverrider[0]: image "nginx:1.25" would become "-cn/nginx:1.25", which is not a valid image reference' },
    { name: "Repository remove leaves no valid image and fails", policies: rule({ imageOverrider: [{ component: "Repository", operator: "remove" }] }), message: 'OverridePolicy default/web rule 0 imageOverrider[0]: image "nginx:1.25" would become ":1.25", which is not a valid image reference' },
    { name: "a predicate path that does not exist fails", policies: rule({ imageOverrider: [{ predicate: { path: `${DEPLOY}/containers/5/image` }, component: "Tag", operator: "replace", value: "v2" }] }), message: `OverridePolicy default/web rule 0 imageOverrider[0]: path ${DEPLOY}/containers/5/image does not exist` },
    { name: "a predicate path that is not an image string fails", policies: rule({ imageOverrider: [{ predicate: { path: "/spec/replicas" }, component: "Tag", operator: "replace", value: "v2" }] }), message: "OverridePolicy default/web rule 0 imageOverrider[0]: /spec/replicas is not an image string" },
    { name: "a predicate path without a leading slash fails", policies: rule({ imageOverrider: [{ predicate: { path: "spec/x" }, component: "Tag", operator: "replace", value: "v2" }] }), message: 'OverridePolicy default/web rule 0 imageOverrider[0]: path "spec/x" must start with "/"' },
    { name: "replace without a value fails", policies: rule({ imageOverrider: [{ component: "Registry", operator: "replace" }] }), message: "OverridePolicy default/web rule 0 imageOverrider[0]: replace needs a string value" },
    { name: "an unknown component fails", policies: rule({ imageOverrider: [{ component: "Digest" as "Tag", operator: "remove" }] }), message: 'OverridePolicy default/web rule 0 imageOverrider[0]: unknown component "Digest"' },
  ]);
});

describe("applyOverrides: commandOverrider and argsOverrider", () => {
  runOkCases([
    { name: "command add appends to the named container", policies: rule({ commandOverrider: [{ containerName: "web", operator: "add", value: ["-c", "/etc/nginx.conf"] }] }), want: { [`${WEB}/command`]: ["nginx", "-c", "/etc/nginx.conf"], [`${SIDECAR}/command`]: undefined } },
    { name: "command add creates an absent command", policies: rule({ commandOverrider: [{ containerName: "sidecar", operator: "add", value: ["/pause"] }] }), want: { [`${SIDECAR}/command`]: ["/pause"], [`${WEB}/command`]: ["nginx"] } },
    { name: "command remove drops every equal item", policies: rule({ commandOverrider: [{ containerName: "web", operator: "remove", value: ["nginx", "absent"] }] }), want: { [`${WEB}/command`]: [] } },
    { name: "remove on an absent command leaves it absent", policies: rule({ commandOverrider: [{ containerName: "sidecar", operator: "remove", value: ["x"] }] }), want: { [`${SIDECAR}/command`]: undefined } },
    { name: "args add appends", policies: rule({ argsOverrider: [{ containerName: "web", operator: "add", value: ["-q"] }] }), want: { [`${WEB}/args`]: ["-g", "daemon off;", "-q"] } },
    { name: "args remove", policies: rule({ argsOverrider: [{ containerName: "web", operator: "remove", value: ["-g"] }] }), want: { [`${WEB}/args`]: ["daemon off;"] } },
    { name: "an initContainer is found by name", policies: rule({ argsOverrider: [{ containerName: "init", operator: "add", value: ["--once"] }] }), want: { [`${INIT}/args`]: ["--once"] } },
    { name: "a container that is not there is ignored (as in Karmada)", policies: rule({ commandOverrider: [{ containerName: "ghost", operator: "add", value: ["x"] }] }), want: { [`${WEB}/command`]: ["nginx"] }, applied: ["OverridePolicy/default/web rule 0"] },
    { name: "Pod containers", obj: pod(), policies: rule({ commandOverrider: [{ containerName: "web", operator: "add", value: ["-t"] }] }), want: { "/spec/containers/0/command": ["nginx", "-t"] } },
    { name: "CronJob containers", obj: cronJob(), policies: rule({ argsOverrider: [{ containerName: "web", operator: "remove", value: ["daemon off;"] }] }), want: { "/spec/jobTemplate/spec/template/spec/containers/0/args": ["-g"] } },
    { name: "a kind without a pod template is left as it is", obj: configMap(), policies: rule({ commandOverrider: [{ containerName: "web", operator: "add", value: ["x"] }] }), want: { "/data": { image: "nginx:1.25" } } },
  ]);
  runFailCases([
    { name: "replace is not a command operator", policies: rule({ commandOverrider: [{ containerName: "web", operator: "replace" as "add", value: ["x"] }] }), message: 'OverridePolicy default/web rule 0 commandOverrider[0]: operator "replace" is not supported here (add or remove)' },
    { name: "a value that is not a list of strings fails", policies: rule({ argsOverrider: [{ containerName: "web", operator: "add", value: "x" as unknown as string[] }] }), message: "OverridePolicy default/web rule 0 argsOverrider[0]: value must be a list of strings" },
  ]);
});

describe("applyOverrides: labelsOverrider and annotationsOverrider", () => {
  const bare: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { namespace: "default", name: "cm" } };
  runOkCases([
    { name: "labels add sets new keys and overwrites existing ones", policies: rule({ labelsOverrider: [{ operator: "add", value: { app: "web2", region: "us" } }] }), want: { "/metadata/labels": { app: "web2", region: "us" } } },
    { name: "labels add creates the map", obj: bare, policies: rule({ labelsOverrider: [{ operator: "add", value: { region: "us" } }] }), want: { "/metadata/labels": { region: "us" } } },
    { name: "labels remove deletes the keys there and skips the rest", policies: rule({ labelsOverrider: [{ operator: "remove", value: { app: "", absent: "" } }] }), want: { "/metadata/labels": {} } },
    { name: "labels replace changes only existing keys", policies: rule({ labelsOverrider: [{ operator: "replace", value: { app: "api", absent: "x" } }] }), want: { "/metadata/labels": { app: "api" } } },
    { name: "labels replace without a map adds nothing", obj: bare, policies: rule({ labelsOverrider: [{ operator: "replace", value: { app: "api" } }] }), want: { "/metadata/labels": undefined } },
    { name: "labels touch the object's metadata, not the pod template's", policies: rule({ labelsOverrider: [{ operator: "add", value: { app: "x" } }] }), want: { "/spec/template/metadata/labels": { app: "web" } } },
    { name: "annotations add with a prefixed key", policies: rule({ annotationsOverrider: [{ operator: "add", value: { "example.com/owner": "team-a" } }] }), want: { "/metadata/annotations": { note: "a", "example.com/owner": "team-a" } } },
    { name: "annotations remove", policies: rule({ annotationsOverrider: [{ operator: "remove", value: { note: "" } }] }), want: { "/metadata/annotations": {} } },
    { name: "annotations replace", policies: rule({ annotationsOverrider: [{ operator: "replace", value: { note: "b", other: "c" } }] }), want: { "/metadata/annotations": { note: "b" } } },
  ]);
  runFailCases([
    { name: "a non-string value fails", policies: rule({ labelsOverrider: [{ operator: "add", value: { n: 1 as unknown as string } }] }), message: 'OverridePolicy default/web rule 0 labelsOverrider[0]: value for labels key "n" must be a string' },
    { name: "an unknown operator fails", policies: rule({ annotationsOverrider: [{ operator: "merge" as "add", value: { a: "b" } }] }), message: 'OverridePolicy default/web rule 0 annotationsOverrider[0]: unknown operator "merge"' },
  ]);
});

describe("applyOverrides: rule targeting", () => {
  const replicas = (n: number, targetCluster?: RuleWithCluster["targetCluster"]): RuleWithCluster => ({
    ...(targetCluster ? { targetCluster } : {}),
    overriders: { plaintext: [{ path: "/spec/replicas", value: n }] },
  });
  const cases: { name: string; rules: RuleWithCluster[]; cluster: Cluster; replicas: number; applied: string[] }[] = [
    { name: "no targetCluster: every cluster", rules: [replicas(5)], cluster: member2, replicas: 5, applied: ["OverridePolicy/default/web rule 0"] },
    { name: "empty targetCluster: every cluster", rules: [replicas(5, {})], cluster: member2, replicas: 5, applied: ["OverridePolicy/default/web rule 0"] },
    { name: "by name: the named cluster", rules: [replicas(5, { clusterNames: ["member1"] })], cluster: member1, replicas: 5, applied: ["OverridePolicy/default/web rule 0"] },
    { name: "by name: another cluster is untouched", rules: [replicas(5, { clusterNames: ["member1"] })], cluster: member2, replicas: 3, applied: [] },
    { name: "by labels", rules: [replicas(5, { labelSelector: { matchLabels: { env: "dev" } } })], cluster: member2, replicas: 5, applied: ["OverridePolicy/default/web rule 0"] },
    { name: "by labels: no match", rules: [replicas(5, { labelSelector: { matchLabels: { env: "dev" } } })], cluster: member1, replicas: 3, applied: [] },
    { name: "by fields", rules: [replicas(5, { fieldSelector: { matchExpressions: [{ key: "provider", operator: "In", values: ["gcp"] }] } })], cluster: member2, replicas: 5, applied: ["OverridePolicy/default/web rule 0"] },
    { name: "by fields: no match", rules: [replicas(5, { fieldSelector: { matchExpressions: [{ key: "region", operator: "NotIn", values: ["us-east-1"] }] } })], cluster: member1, replicas: 3, applied: [] },
    { name: "exclude", rules: [replicas(5, { exclude: ["member1"] })], cluster: member1, replicas: 3, applied: [] },
    {
      name: "only the rules that match run, in rule order",
      rules: [replicas(5, { clusterNames: ["member1"] }), replicas(6, { clusterNames: ["member2"] }), replicas(7, { labelSelector: { matchLabels: { env: "prod" } } })],
      cluster: member1,
      replicas: 7,
      applied: ["OverridePolicy/default/web rule 0", "OverridePolicy/default/web rule 2"],
    },
    {
      name: "a failing rule for another cluster does not run",
      rules: [{ targetCluster: { clusterNames: ["member2"] }, overriders: { plaintext: [{ path: "/nope", operator: "remove" }] } }, replicas(4)],
      cluster: member1,
      replicas: 4,
      applied: ["OverridePolicy/default/web rule 1"],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const result = applyOverrides(deployment(), c.cluster, [op("default", "web", c.rules)]);
      assert.ok(result.ok, result.ok ? "" : result.message);
      assert.equal(at(result.object, "/spec/replicas"), c.replicas);
      assert.deepEqual(result.applied, c.applied);
    });
  }
});

describe("applyOverrides: order", () => {
  const set = (n: number): RuleWithCluster => ({ overriders: { plaintext: [{ path: "/spec/replicas", value: n }] } });
  runOkCases([
    {
      name: "a ClusterOverridePolicy runs first, so an OverridePolicy's value wins",
      policies: [op("default", "a", [set(5)]), cop("z", [set(2)])],
      want: { "/spec/replicas": 5 },
      applied: ["ClusterOverridePolicy//z rule 0", "OverridePolicy/default/a rule 0"],
    },
    {
      name: "policies of one scope run by name, so the last name wins",
      policies: [op("default", "b", [set(6)]), op("default", "a", [set(5)])],
      want: { "/spec/replicas": 6 },
      applied: ["OverridePolicy/default/a rule 0", "OverridePolicy/default/b rule 0"],
    },
    { name: "rules of one policy run in order", policies: [op("default", "web", [set(5), set(8)])], want: { "/spec/replicas": 8 } },
    {
      name: "within a rule the image overrider runs before plaintext",
      policies: rule({ plaintext: [{ path: `${WEB}/image`, value: "nginx:2" }], imageOverrider: [{ component: "Tag", operator: "replace", value: "3" }] }),
      want: { [`${WEB}/image`]: "nginx:2", [`${SIDECAR}/image`]: "registry.k8s.io/pause:3" },
    },
    {
      name: "within a rule labels run before plaintext, which sees their result",
      policies: rule({ plaintext: [{ path: "/metadata/labels/tier", operator: "remove" }], labelsOverrider: [{ operator: "add", value: { tier: "front", zone: "a" } }] }),
      want: { "/metadata/labels": { app: "web", zone: "a" } },
    },
    {
      name: "within a rule command runs before args, args before labels",
      policies: rule({ labelsOverrider: [{ operator: "add", value: { x: "1" } }], argsOverrider: [{ containerName: "web", operator: "add", value: ["a"] }], commandOverrider: [{ containerName: "web", operator: "add", value: ["c"] }] }),
      want: { [`${WEB}/command`]: ["nginx", "c"], [`${WEB}/args`]: ["-g", "daemon off;", "a"], "/metadata/labels/x": "1" },
    },
  ]);
});

describe("applyOverrides: failures", () => {
  runFailCases([
    {
      name: "a ClusterOverridePolicy is named without a namespace",
      policies: [cop("global", [{ overriders: { plaintext: [{ path: "/spec/x", operator: "remove" }] } }])],
      message: "ClusterOverridePolicy global rule 0 plaintext[0]: path /spec/x does not exist",
    },
    {
      name: "a failure in a later policy fails the whole object",
      policies: [cop("a", [{ overriders: { plaintext: [{ path: "/spec/replicas", value: 2 }] } }]), op("default", "b", [{ overriders: {} }, { overriders: { plaintext: [{ path: "/spec/nope", value: 1 }] } }])],
      message: "OverridePolicy default/b rule 1 plaintext[0]: path /spec/nope does not exist",
    },
    { name: "a malformed overrider list fails", policies: rule({ plaintext: "x" as unknown as [] }), message: "OverridePolicy default/web rule 0 plaintext: not a list" },
    { name: "a malformed overrider fails", policies: rule({ labelsOverrider: [null as unknown as { operator: "add" }] }), message: "OverridePolicy default/web rule 0 labelsOverrider[0]: not an object" },
    { name: "malformed overrideRules fail", policies: [{ ...op("default", "web", []), spec: { overrideRules: {} as [] } }], message: "OverridePolicy default/web: spec.overrideRules is not a list" },
    { name: "a malformed rule fails", policies: [op("default", "web", [7 as unknown as RuleWithCluster])], message: "OverridePolicy default/web rule 0: not an object" },
  ]);

  it("never throws on a malformed targetCluster", () => {
    const bad = op("default", "web", [{ targetCluster: { exclude: 5 as unknown as string[] }, overriders: {} }]);
    const result = applyOverrides(deployment(), member1, [bad]);
    assert.equal(result.ok, false);
    assert.match(result.ok ? "" : result.message, /^OverridePolicy default\/web rule 0: \S/);
  });
});

describe("applyOverrides: purity", () => {
  const policies = [
    cop("mirror", [{ overriders: { imageOverrider: [{ component: "Registry", operator: "replace", value: "mirror.io" }] } }]),
    op("default", "web", [
      { targetCluster: { clusterNames: ["member1"] }, overriders: { plaintext: [{ path: "/metadata/labels", value: { fresh: "1" } }], commandOverrider: [{ containerName: "web", operator: "add", value: ["-t"] }] } },
      { overriders: { labelsOverrider: [{ operator: "add", value: { more: "2" } }], annotationsOverrider: [{ operator: "remove", value: { note: "" } }] } },
    ]),
  ];

  it("mutates neither the object nor the policies, and shares nothing with them", () => {
    const obj = deployment();
    const objBefore = structuredClone(obj);
    const policiesBefore = structuredClone(policies);
    const result = applyOverrides(obj, member1, policies);
    assert.ok(result.ok);
    assert.deepEqual(obj, objBefore);
    assert.deepEqual(policies, policiesBefore);
    // The labels came from a plaintext value, then a labelsOverrider added to them: the policy's value is untouched.
    assert.deepEqual(result.object.metadata.labels, { fresh: "1", more: "2" });
    assert.notEqual(result.object, obj);
  });

  it("leaves the input alone when it fails", () => {
    const obj = deployment();
    const objBefore = structuredClone(obj);
    const result = applyOverrides(obj, member1, [...policies, op("default", "zz", [{ overriders: { plaintext: [{ path: "/spec/replicaz", value: 1 }] } }])]);
    assert.equal(result.ok, false);
    assert.deepEqual(obj, objBefore);
  });

  it("without policies returns an equal copy", () => {
    const obj = deployment();
    const result = applyOverrides(obj, member1, []);
    assert.ok(result.ok);
    assert.deepEqual(result.object, obj);
    assert.notEqual(result.object, obj);
    assert.deepEqual(result.applied, []);
  });

  it("gives the same answer every time, whatever order the policies come in", () => {
    const first = applyOverrides(deployment(), member1, policies);
    const again = applyOverrides(deployment(), member1, [...policies].reverse());
    assert.deepEqual(again, first);
    assert.deepEqual(applyOverrides(deployment(), member1, policies), first);
  });

  it("gives each cluster its own rules", () => {
    const one = applyOverrides(deployment(), member1, policies);
    const two = applyOverrides(deployment(), member2, policies);
    assert.ok(one.ok && two.ok);
    assert.deepEqual(at(one.object, `${WEB}/command`), ["nginx", "-t"]);
    assert.deepEqual(at(two.object, `${WEB}/command`), ["nginx"]);
    assert.deepEqual(two.object.metadata.labels, { app: "web", more: "2" });
    assert.deepEqual(two.applied, ["ClusterOverridePolicy//mirror rule 0", "OverridePolicy/default/web rule 1"]);
  });
});
