import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import { type DependentObjectReference, InterpreterError, type KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import { NATIVE_INTERPRETERS } from "../../shared/interpreter/registry.ts";
import { interpretDependencies, parentRequires, referencedKinds, refersTo, requiredClusters, resolveDependencies } from "./dependencies.ts";

type DependencyRef = DependentObjectReference;
type DependencyKind = "ConfigMap" | "Secret" | "ServiceAccount" | "PersistentVolumeClaim";

/** A template's dependencies through its kind's native interpreter, as the binding controller asks without customizations. */
function dependenciesOf(template: KubeObject): DependencyRef[] {
  const got = interpretDependencies(template, NATIVE_INTERPRETERS.for(template));
  if ("interpreterFailed" in got) throw new Error(got.interpreterFailed);
  return got.refs;
}

const NS = "shop";

function pod(spec: unknown, namespace: string | null = NS): KubeObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: namespace ?? undefined }, spec };
}

function ref(kind: DependencyKind, name: string): DependencyRef {
  return { apiVersion: "v1", kind, namespace: NS, name };
}

const cm = (name: string): DependencyRef => ref("ConfigMap", name);
const secret = (name: string): DependencyRef => ref("Secret", name);
const sa = (name: string): DependencyRef => ref("ServiceAccount", name);
const pvc = (name: string): DependencyRef => ref("PersistentVolumeClaim", name);

// A pod spec that refers to one object of each kind, for the workload-path cases.
const fullSpec = {
  serviceAccountName: "runner",
  imagePullSecrets: [{ name: "registry" }],
  volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data" } }],
  containers: [{ name: "app", envFrom: [{ configMapRef: { name: "settings" } }] }],
};
const fullWant = [cm("settings"), pvc("data"), secret("registry"), sa("runner")];

describe("dependenciesOf: reference sites in the pod spec", () => {
  const cases: { name: string; spec: unknown; want: DependencyRef[] }[] = [
    { name: "volume configMap", spec: { volumes: [{ name: "v", configMap: { name: "cfg" } }] }, want: [cm("cfg")] },
    { name: "volume secret", spec: { volumes: [{ name: "v", secret: { secretName: "tls" } }] }, want: [secret("tls")] },
    { name: "volume persistentVolumeClaim", spec: { volumes: [{ name: "v", persistentVolumeClaim: { claimName: "data" } }] }, want: [pvc("data")] },
    {
      name: "projected configMap and secret sources",
      spec: { volumes: [{ name: "v", projected: { sources: [{ configMap: { name: "cfg" } }, { secret: { name: "tok" } }, { serviceAccountToken: { path: "t" } }] } }] },
      want: [cm("cfg"), secret("tok")],
    },
    { name: "csi nodePublishSecretRef", spec: { volumes: [{ name: "v", csi: { driver: "d", nodePublishSecretRef: { name: "csi-s" } } }] }, want: [secret("csi-s")] },
    { name: "cephfs secretRef", spec: { volumes: [{ name: "v", cephfs: { monitors: ["m"], secretRef: { name: "ceph-s" } } }] }, want: [secret("ceph-s")] },
    { name: "rbd secretRef", spec: { volumes: [{ name: "v", rbd: { image: "i", secretRef: { name: "rbd-s" } } }] }, want: [secret("rbd-s")] },
    { name: "flexVolume secretRef", spec: { volumes: [{ name: "v", flexVolume: { driver: "d", secretRef: { name: "flex-s" } } }] }, want: [secret("flex-s")] },
    { name: "iscsi secretRef", spec: { volumes: [{ name: "v", iscsi: { iqn: "q", secretRef: { name: "iscsi-s" } } }] }, want: [secret("iscsi-s")] },
    { name: "scaleIO secretRef", spec: { volumes: [{ name: "v", scaleIO: { system: "s", secretRef: { name: "sio-s" } } }] }, want: [secret("sio-s")] },
    { name: "storageos secretRef", spec: { volumes: [{ name: "v", storageos: { volumeName: "x", secretRef: { name: "sos-s" } } }] }, want: [secret("sos-s")] },
    { name: "azureFile secretName", spec: { volumes: [{ name: "v", azureFile: { shareName: "s", secretName: "az-s" } }] }, want: [secret("az-s")] },
    { name: "volumes that refer to nothing", spec: { volumes: [{ name: "v", emptyDir: {} }, { name: "w", hostPath: { path: "/x" } }] }, want: [] },

    { name: "container envFrom configMapRef", spec: { containers: [{ name: "c", envFrom: [{ configMapRef: { name: "cfg" } }] }] }, want: [cm("cfg")] },
    { name: "container envFrom secretRef", spec: { containers: [{ name: "c", envFrom: [{ prefix: "X_", secretRef: { name: "env-s" } }] }] }, want: [secret("env-s")] },
    {
      name: "container env configMapKeyRef",
      spec: { containers: [{ name: "c", env: [{ name: "A", valueFrom: { configMapKeyRef: { name: "cfg", key: "a" } } }] }] },
      want: [cm("cfg")],
    },
    {
      name: "container env secretKeyRef",
      spec: { containers: [{ name: "c", env: [{ name: "A", valueFrom: { secretKeyRef: { name: "key-s", key: "a" } } }] }] },
      want: [secret("key-s")],
    },
    {
      name: "env with a plain value or a fieldRef refers to nothing",
      spec: { containers: [{ name: "c", env: [{ name: "A", value: "1" }, { name: "B", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }] }] },
      want: [],
    },
    { name: "initContainers are read", spec: { initContainers: [{ name: "i", envFrom: [{ secretRef: { name: "init-s" } }] }] }, want: [secret("init-s")] },
    {
      name: "ephemeralContainers are read",
      spec: { ephemeralContainers: [{ name: "e", env: [{ name: "A", valueFrom: { configMapKeyRef: { name: "debug", key: "k" } } }] }] },
      want: [cm("debug")],
    },
    { name: "imagePullSecrets", spec: { imagePullSecrets: [{ name: "registry" }, { name: "mirror" }] }, want: [secret("mirror"), secret("registry")] },

    { name: "serviceAccountName", spec: { serviceAccountName: "runner" }, want: [sa("runner")] },
    { name: "the default service account is skipped", spec: { serviceAccountName: "default" }, want: [] },
    // Karmada reads serviceAccountName only; the apiserver fills it from the deprecated field, so a stored template has it.
    { name: "the deprecated serviceAccount alone is not read", spec: { serviceAccount: "legacy" }, want: [] },
    { name: "serviceAccountName, not serviceAccount", spec: { serviceAccountName: "runner", serviceAccount: "legacy" }, want: [sa("runner")] },
    { name: "an empty serviceAccountName does not fall back to serviceAccount", spec: { serviceAccountName: "", serviceAccount: "legacy" }, want: [] },

    {
      name: "optional references are still dependencies",
      spec: {
        volumes: [{ name: "v", configMap: { name: "maybe-cm", optional: true } }, { name: "w", secret: { secretName: "maybe-s", optional: true } }],
        containers: [{ name: "c", env: [{ name: "A", valueFrom: { secretKeyRef: { name: "maybe-key", key: "k", optional: true } } }] }],
      },
      want: [cm("maybe-cm"), secret("maybe-key"), secret("maybe-s")],
    },
    {
      name: "empty names are skipped",
      spec: {
        serviceAccountName: "",
        imagePullSecrets: [{ name: "" }],
        volumes: [{ name: "v", configMap: { name: "" } }, { name: "w", secret: { secretName: "" } }, { name: "x", persistentVolumeClaim: { claimName: "" } }],
        containers: [{ name: "c", envFrom: [{ configMapRef: { name: "" } }, { secretRef: {} }] }],
      },
      want: [],
    },
    { name: "an empty pod spec refers to nothing", spec: {}, want: [] },
    {
      name: "duplicates collapse, output sorted by kind then name",
      spec: {
        serviceAccountName: "runner",
        imagePullSecrets: [{ name: "b-s" }, { name: "a-s" }, { name: "b-s" }],
        volumes: [
          { name: "v1", configMap: { name: "z-cm" } },
          { name: "v2", secret: { secretName: "a-s" } },
          { name: "v3", persistentVolumeClaim: { claimName: "data" } },
          { name: "v4", projected: { sources: [{ configMap: { name: "a-cm" } }, { configMap: { name: "z-cm" } }] } },
        ],
        containers: [
          { name: "c1", envFrom: [{ configMapRef: { name: "a-cm" } }, { secretRef: { name: "b-s" } }] },
          { name: "c2", env: [{ name: "A", valueFrom: { configMapKeyRef: { name: "z-cm", key: "k" } } }] },
        ],
        initContainers: [{ name: "i", envFrom: [{ secretRef: { name: "a-s" } }] }],
      },
      want: [cm("a-cm"), cm("z-cm"), pvc("data"), secret("a-s"), secret("b-s"), sa("runner")],
    },
    {
      name: "names sort by code unit, not by locale",
      spec: { imagePullSecrets: [{ name: "b" }, { name: "B" }, { name: "a" }, { name: "A" }] },
      want: [secret("A"), secret("B"), secret("a"), secret("b")],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(dependenciesOf(pod(c.spec)), c.want);
    });
  }
});

describe("dependenciesOf: where each workload kind keeps its pod spec", () => {
  const templated = { template: { metadata: { labels: { app: "a" } }, spec: fullSpec } };
  const cases: { name: string; template: KubeObject; want: DependencyRef[] }[] = [
    { name: "v1 Pod: spec", template: pod(fullSpec), want: fullWant },
    { name: "apps/v1 Deployment: spec.template.spec", template: workload("apps/v1", "Deployment", { replicas: 2, ...templated }), want: fullWant },
    { name: "apps/v1 ReplicaSet: spec.template.spec", template: workload("apps/v1", "ReplicaSet", templated), want: fullWant },
    { name: "apps/v1 StatefulSet: spec.template.spec", template: workload("apps/v1", "StatefulSet", templated), want: fullWant },
    { name: "apps/v1 DaemonSet: spec.template.spec", template: workload("apps/v1", "DaemonSet", templated), want: fullWant },
    { name: "batch/v1 Job: spec.template.spec", template: workload("batch/v1", "Job", templated), want: fullWant },
    {
      name: "batch/v1 CronJob: spec.jobTemplate.spec.template.spec",
      template: workload("batch/v1", "CronJob", { schedule: "* * * * *", jobTemplate: { spec: templated } }),
      want: fullWant,
    },
    { name: "a Deployment's pod spec is not read from spec", template: workload("apps/v1", "Deployment", fullSpec), want: [] },
    { name: "a CronJob's pod spec is not read from spec.template.spec", template: workload("batch/v1", "CronJob", templated), want: [] },
    {
      name: "StatefulSet volumeClaimTemplates are not dependencies",
      template: workload("apps/v1", "StatefulSet", {
        volumeClaimTemplates: [{ metadata: { name: "www" }, spec: { accessModes: ["ReadWriteOnce"] } }],
        template: { spec: { containers: [{ name: "c", volumeMounts: [{ name: "www", mountPath: "/www" }] }] } },
      }),
      want: [],
    },
    {
      name: "networking.k8s.io/v1 Ingress: its TLS Secrets (a native interpreter's answer, beyond pod templates)",
      template: workload("networking.k8s.io/v1", "Ingress", { tls: [{ hosts: ["a"], secretName: "a-tls" }, { hosts: ["b"] }] }),
      want: [secret("a-tls")],
    },
    { name: "unknown kind gives nothing", template: workload("apps/v1", "Widget", templated), want: [] },
    { name: "a dependency kind itself gives nothing", template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: NS }, data: {} }, want: [] },
    { name: "wrong apiVersion: extensions/v1beta1 Deployment", template: workload("extensions/v1beta1", "Deployment", templated), want: [] },
    { name: "wrong apiVersion: batch/v1beta1 CronJob", template: workload("batch/v1beta1", "CronJob", { jobTemplate: { spec: templated } }), want: [] },
    { name: "wrong apiVersion: apps/v1 Pod", template: { ...pod(fullSpec), apiVersion: "apps/v1" }, want: [] },
    { name: "no namespace gives nothing", template: pod(fullSpec, null), want: [] },
    { name: "empty namespace gives nothing", template: pod(fullSpec, ""), want: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(dependenciesOf(c.template), c.want);
    });
  }

  it("takes every ref's namespace from the template", () => {
    const got = dependenciesOf(pod(fullSpec, "other"));
    assert.equal(got.length, fullWant.length);
    for (const r of got) assert.equal(r.namespace, "other", `${r.kind}/${r.name}`);
  });

  it("does not mutate the template", () => {
    const template = workload("batch/v1", "CronJob", { jobTemplate: { spec: templated } });
    const before = structuredClone(template);
    dependenciesOf(template);
    assert.deepEqual(template, before);
  });
});

describe("dependenciesOf: malformed shapes are ignored, never thrown on", () => {
  const cases: { name: string; spec: unknown; want: DependencyRef[] }[] = [
    { name: "spec is a string", spec: "nope", want: [] },
    { name: "spec is an array", spec: [fullSpec], want: [] },
    { name: "spec is null", spec: null, want: [] },
    { name: "volumes is an object", spec: { volumes: { configMap: { name: "cfg" } } }, want: [] },
    { name: "containers is a string", spec: { containers: "app", imagePullSecrets: [{ name: "registry" }] }, want: [secret("registry")] },
    { name: "list entries that are not objects", spec: { volumes: [null, 3, "v", [], { name: "v", configMap: { name: "cfg" } }] }, want: [cm("cfg")] },
    { name: "numbers where names are expected", spec: { volumes: [{ name: "v", configMap: { name: 7 } }, { name: "w", secret: { secretName: false } }], imagePullSecrets: [{ name: 1 }] }, want: [] },
    { name: "reference holders that are not objects", spec: { volumes: [{ name: "v", configMap: "cfg", csi: [], rbd: { secretRef: "s" } }] }, want: [] },
    { name: "projected sources not an array", spec: { volumes: [{ name: "v", projected: { sources: { configMap: { name: "cfg" } } } }] }, want: [] },
    { name: "envFrom and env not arrays", spec: { containers: [{ name: "c", envFrom: { configMapRef: { name: "cfg" } }, env: "A=1" }] }, want: [] },
    { name: "valueFrom not an object", spec: { containers: [{ name: "c", env: [{ name: "A", valueFrom: "cfg" }, null] }] }, want: [] },
    { name: "serviceAccountName not a string", spec: { serviceAccountName: 42 }, want: [] },
    { name: "serviceAccountName an object", spec: { serviceAccountName: { name: "runner" } }, want: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(dependenciesOf(pod(c.spec)), c.want);
    });
  }

  it("survives malformed intermediate objects on each workload path", () => {
    const broken: KubeObject[] = [
      workload("apps/v1", "Deployment", { template: "x" }),
      workload("apps/v1", "Deployment", { template: { spec: 5 } }),
      workload("batch/v1", "CronJob", { jobTemplate: [] }),
      workload("batch/v1", "CronJob", { jobTemplate: { spec: { template: null } } }),
      { apiVersion: "apps/v1", kind: "DaemonSet", metadata: { name: "d", namespace: NS } },
      { apiVersion: "v1", kind: "Pod", metadata: null as unknown as KubeObject["metadata"], spec: fullSpec },
      { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: 3 as unknown as string }, spec: fullSpec },
    ];
    for (const t of broken) assert.deepEqual(dependenciesOf(t), [], `${t.apiVersion}/${t.kind}`);
  });
});

function workload(apiVersion: string, kind: string, spec: unknown): KubeObject {
  return { apiVersion, kind, metadata: { name: "w", namespace: NS }, spec };
}

// A kind's customization, as the registry gives it: its GetDependencies answers, or its script fails.
const widget = (spec: unknown, namespace = NS): KubeObject => ({ apiVersion: "example.dev/v1", kind: "Widget", metadata: { name: "w", namespace }, spec });
const scripted = (answer: (obj: KubeObject) => DependencyRef[]): KindInterpreter => ({ getDependencies: answer });
const byLabels = (kind: string, matchLabels: Record<string, string>, namespace = NS): DependencyRef => ({ apiVersion: "v1", kind, namespace, labelSelector: { matchLabels } });

describe("interpretDependencies: a customization's answer", () => {
  const gadget: DependencyRef = { apiVersion: "example.dev/v1", kind: "Gadget", namespace: NS, name: "g" };
  const cases: { name: string; template: KubeObject; interpreter: KindInterpreter | undefined; want: ReturnType<typeof interpretDependencies> }[] = [
    { name: "a kind without InterpretDependency has none", template: widget({}), interpreter: undefined, want: { refs: [] } },
    { name: "an interpreter without getDependencies has none", template: widget({}), interpreter: {}, want: { refs: [] } },
    { name: "any kind a script names, by name", template: widget({}), interpreter: scripted(() => [cm("settings"), gadget]), want: { refs: [cm("settings"), gadget] } },
    { name: "a reference by label selector", template: widget({}), interpreter: scripted(() => [byLabels("Secret", { tier: "web" })]), want: { refs: [byLabels("Secret", { tier: "web" })] } },
    {
      name: "references in another namespace are left out (a dependency follows its parent within its namespace)",
      template: widget({}),
      interpreter: scripted(() => [cm("settings"), { ...cm("far"), namespace: "elsewhere" }, { ...cm("none"), namespace: "" }]),
      want: { refs: [cm("settings")] },
    },
    {
      name: "a reference with neither a name nor a selector names nothing",
      template: widget({}),
      interpreter: scripted(() => [{ apiVersion: "v1", kind: "ConfigMap", namespace: NS }, { apiVersion: "v1", kind: "Secret", namespace: NS, name: "" }]),
      want: { refs: [] },
    },
    { name: "a cluster-scoped parent has none (its script is not run)", template: widget({}, ""), interpreter: scripted(() => assert.fail("ran")), want: { refs: [] } },
    {
      name: "a failing script is an answer: the operation and its message",
      template: widget({}),
      interpreter: scripted(() => {
        throw new InterpreterError("InterpretDependency", "luaScript:2: attempt to index a nil value (field 'missing')");
      }),
      want: { interpreterFailed: "InterpretDependency: luaScript:2: attempt to index a nil value (field 'missing')" },
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(interpretDependencies(c.template, c.interpreter), c.want));

  it("anything else thrown is a programming error and propagates", () => {
    const broken = scripted(() => {
      throw new TypeError("boom");
    });
    assert.throws(() => interpretDependencies(widget({}), broken), TypeError);
  });
});

const object = (kind: string, name: string, labels?: Record<string, string>, namespace = NS, apiVersion = "v1"): KubeObject => ({ apiVersion, kind, metadata: { name, namespace, ...(labels ? { labels } : {}) } });

describe("refersTo", () => {
  const cases: { name: string; ref: DependencyRef; obj: KubeObject; want: boolean }[] = [
    { name: "by name", ref: cm("settings"), obj: object("ConfigMap", "settings"), want: true },
    { name: "another name", ref: cm("settings"), obj: object("ConfigMap", "other"), want: false },
    { name: "another kind of the same name", ref: cm("settings"), obj: object("Secret", "settings"), want: false },
    { name: "another apiVersion", ref: cm("settings"), obj: object("ConfigMap", "settings", undefined, NS, "example.dev/v1"), want: false },
    { name: "another namespace", ref: cm("settings"), obj: object("ConfigMap", "settings", undefined, "elsewhere"), want: false },
    { name: "a selector its labels match", ref: byLabels("Secret", { tier: "web" }), obj: object("Secret", "a", { tier: "web", extra: "x" }), want: true },
    { name: "a selector its labels do not match", ref: byLabels("Secret", { tier: "web" }), obj: object("Secret", "a", { tier: "db" }), want: false },
    { name: "a selector and no labels", ref: byLabels("Secret", { tier: "web" }), obj: object("Secret", "a"), want: false },
    {
      name: "matchExpressions",
      ref: { apiVersion: "v1", kind: "Secret", namespace: NS, labelSelector: { matchExpressions: [{ key: "tier", operator: "In", values: ["web", "api"] }] } },
      obj: object("Secret", "a", { tier: "api" }),
      want: true,
    },
    { name: "an empty selector matches every object of the kind (as Kubernetes reads it)", ref: byLabels("Secret", {}), obj: object("Secret", "a"), want: true },
    {
      name: "a malformed selector matches nothing",
      ref: { apiVersion: "v1", kind: "Secret", namespace: NS, labelSelector: { matchExpressions: [{ key: "tier", operator: "Near", values: ["web"] }] } },
      obj: object("Secret", "a", { tier: "web" }),
      want: false,
    },
    { name: "a name wins over a selector", ref: { ...cm("settings"), labelSelector: { matchLabels: { tier: "web" } } }, obj: object("ConfigMap", "other", { tier: "web" }), want: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(refersTo(c.ref, c.obj), c.want));
});

describe("parentRequires", () => {
  const settings = object("ConfigMap", "settings");
  const cases: { name: string; refs: DependencyRef[]; settled: boolean; requiredBefore: boolean; want: boolean }[] = [
    { name: "a settled parent that refers to it", refs: [cm("settings")], settled: true, requiredBefore: false, want: true },
    { name: "a settled parent that no longer refers to it lets it go", refs: [cm("other")], settled: true, requiredBefore: true, want: false },
    { name: "a parent whose script failed keeps what it required (DESIGN §11)", refs: [], settled: false, requiredBefore: true, want: true },
    { name: "a parent whose script failed adds nothing new", refs: [], settled: false, requiredBefore: false, want: false },
    { name: "a parent whose script failed still requires what its last answer named", refs: [cm("settings")], settled: false, requiredBefore: false, want: true },
  ];
  for (const c of cases) it(c.name, () => assert.equal(parentRequires({ refs: c.refs, settled: c.settled }, settings, c.requiredBefore), c.want));
});

describe("resolveDependencies", () => {
  const secrets = [object("Secret", "web-a", { tier: "web" }), object("Secret", "db", { tier: "db" }), object("Secret", "web-b", { tier: "web" })];
  const list = (k: { apiVersion: string; kind: string }, namespace: string): KubeObject[] =>
    k.apiVersion === "v1" && k.kind === "Secret" && namespace === NS ? secrets : [];
  const cases: { name: string; refs: DependencyRef[]; want: string[] }[] = [
    { name: "nothing", refs: [], want: [] },
    { name: "a name, whether it exists or not", refs: [cm("not-yet")], want: ["core/v1/ConfigMap/shop/not-yet"] },
    { name: "a selector: every object of the kind in the namespace that matches", refs: [byLabels("Secret", { tier: "web" })], want: ["core/v1/Secret/shop/web-a", "core/v1/Secret/shop/web-b"] },
    { name: "a selector that matches nothing", refs: [byLabels("Secret", { tier: "cache" })], want: [] },
    { name: "a selector of a kind not in the cache", refs: [byLabels("ConfigMap", { tier: "web" })], want: [] },
    {
      name: "a CRD kind by name, and overlaps once, sorted",
      refs: [{ apiVersion: "example.dev/v1", kind: "Gadget", namespace: NS, name: "g" }, byLabels("Secret", { tier: "web" }), secret("web-a")],
      want: ["core/v1/Secret/shop/web-a", "core/v1/Secret/shop/web-b", "example.dev/v1/Gadget/shop/g"],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(resolveDependencies(c.refs, list), c.want));
});

describe("referencedKinds", () => {
  it("each kind once, by apiVersion and kind", () => {
    const refs = [cm("a"), cm("b"), byLabels("Secret", { tier: "web" }), { apiVersion: "example.dev/v1", kind: "Secret", namespace: NS, name: "s" }];
    assert.deepEqual(referencedKinds(refs), [
      { apiVersion: "v1", kind: "ConfigMap" },
      { apiVersion: "v1", kind: "Secret" },
      { apiVersion: "example.dev/v1", kind: "Secret" },
    ]);
  });
});

describe("requiredClusters: where a parent's binding requires a dependency", () => {
  const parent = (propagateDeps: boolean, clusters: string[]) => ({ name: "web-deployment", propagateDeps, clusters });
  const cases: { name: string; parent: ReturnType<typeof parent>; before?: { name: string; clusters?: string[] }; requires: boolean; want: string[] | undefined }[] = [
    { name: "propagateDeps: wherever the parent is placed", parent: parent(true, ["member1", "member2"]), requires: true, want: ["member1", "member2"] },
    { name: "propagateDeps, moved: follows it", parent: parent(true, ["member2"]), before: { name: "web-deployment", clusters: ["member1"] }, requires: true, want: ["member2"] },
    { name: "a parent that no longer refers to it requires nothing", parent: parent(true, ["member1"]), before: { name: "web-deployment", clusters: ["member1"] }, requires: false, want: undefined },
    // Issue 37: the Deployment's policy was deleted and a policy without propagateDeps took it; it still mounts the ConfigMap in member2.
    { name: "without propagateDeps it holds where it had it and is still placed", parent: parent(false, ["member2", "member3"]), before: { name: "web-deployment", clusters: ["member1", "member2"] }, requires: true, want: ["member2"] },
    { name: "without propagateDeps, never required before: adds nothing", parent: parent(false, ["member2"]), requires: true, want: undefined },
    { name: "without propagateDeps, placed nowhere it had it: holds nothing", parent: parent(false, ["member3"]), before: { name: "web-deployment", clusters: ["member2"] }, requires: true, want: undefined },
    { name: "without propagateDeps and no longer referring: lets go", parent: parent(false, ["member2"]), before: { name: "web-deployment", clusters: ["member2"] }, requires: false, want: undefined },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(requiredClusters(c.parent, c.before, c.requires), c.want));
});
