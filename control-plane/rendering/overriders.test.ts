import { describe } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import { DEPLOY, DIGEST, INIT, SIDECAR, WEB, configMap, cronJob, deployment, pod, rule, runFailCases, runOkCases } from "./overrides.fixtures.ts";

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
