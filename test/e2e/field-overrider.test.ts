// Issue 26 end to end: a ConfigMap holding YAML reaches two members, one with a sub-field of the
// YAML replaced by a fieldOverrider; Karmada's deprecated top-level targetCluster + overriders
// works; a document that no longer parses fails that cluster's Work in the binding's status and
// leaves the copy the member runs as it was.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type BindingJson, clusterItem, eventually, getJson, kubectl, runCommand, sleep } from "./helpers.ts";
import { ensureTestBundles } from "../env/test-bundles.ts";

const NS = "fields";
const CTL = (await ensureTestBundles()).flotillactl;
const YAML = "# served by the app\nserver:\n  port: 8080\n  hosts:\n  - a.example\nlog: info\n";

interface ConfigMapJson {
  data?: Record<string, string>;
}

const configMap = (name: string, data: Record<string, string>) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: NS }, data });
const propagate = (name: string) =>
  JSON.stringify({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "PropagationPolicy",
    metadata: { name, namespace: NS },
    spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name }], placement: { clusterAffinity: { clusterNames: ["member1", "member2"] } } },
  });
const portRule = (port: number) => ({
  overrideRules: [{ targetCluster: { clusterNames: ["member2"] }, overriders: { fieldOverrider: [{ fieldPath: "/data/config.yaml", yaml: [{ subPath: "/server/port", operator: "replace", value: port }] }] } }],
});
type PlanJson = { templates: { clusters: { cluster: string; change: string; planned?: { manifests: ConfigMapJson[] } }[] }[] };
const overridePolicy = (name: string, spec: object) =>
  JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "OverridePolicy", metadata: { name, namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name }], ...spec } });

describe("fieldOverrider and the deprecated override form", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let m1: Cluster;
  let m2: Cluster;
  const data = (member: Cluster, name: string) => getJson<ConfigMapJson>(member, ["cm", "-n", NS, name]);
  const ctl = (args: string[]) => runCommand(process.execPath, [CTL, ...args], { cwd: fleet.root, env: { ...process.env, FLOTILLA_STATE_DIR: fleet.root } });
  const binding = (name: string) => getJson<BindingJson>(fleet.control, ["resourcebinding", "-n", NS, `${name}-configmap`]);

  before(async () => {
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet);
    m1 = fleet.members[0] as Cluster;
    m2 = fleet.members[1] as Cluster;
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("replaces a sub-field of the YAML in member2's copy only, and flotillactl render and plan show it", async () => {
    await apply(fleet.control, overridePolicy("settings", portRule(9090)));
    await apply(fleet.control, [configMap("settings", { "config.yaml": YAML }), propagate("settings")].join("\n---\n"));
    const overridden = "log: info\nserver:\n  hosts:\n  - a.example\n  port: 9090\n";
    await eventually("member2 holds the overridden YAML", () => data(m2, "settings"), (c) => c.data?.["config.yaml"] === overridden);
    const kept = await eventually("member1 holds the template's YAML", () => data(m1, "settings"), (c) => c.data?.["config.yaml"] !== undefined);
    assert.equal(kept.data?.["config.yaml"], YAML, "member1's copy is the template's, byte for byte");

    const render = await ctl(["render", "configmap/settings", "-n", NS, "--cluster", "member2", "-o", "json"]);
    assert.equal(render.code, 0, render.stderr);
    assert.equal((JSON.parse(render.stdout) as ConfigMapJson).data?.["config.yaml"], overridden);

    const file = join(fleet.root, "plan.yaml");
    await writeFile(file, [configMap("settings", { "config.yaml": YAML }), overridePolicy("settings", portRule(7070))].join("\n---\n"));
    const plan = await ctl(["plan", "-f", file, "-o", "json"]);
    assert.equal(plan.code, 0, plan.stderr);
    const clusters = (JSON.parse(plan.stdout) as PlanJson).templates[0]?.clusters ?? [];
    assert.deepEqual(clusters.map((c) => `${c.cluster}:${c.change}`), ["member1:unchanged", "member2:changed"]);
    assert.equal(clusters[1]?.planned?.manifests[0]?.data?.["config.yaml"], overridden.replace("9090", "7070"));
  });

  it("fails member2's Work when the YAML no longer parses, keeping the copy it runs, while member1 follows the template", async () => {
    await apply(fleet.control, configMap("settings", { "config.yaml": "server: [8080\n" }));
    await eventually("member1 follows the template", () => data(m1, "settings"), (c) => c.data?.["config.yaml"] === "server: [8080\n");
    const b = await eventually("the binding shows member2 ApplyOverridesFailed", () => binding("settings"), (x) => clusterItem(x, "member2")?.reason === "ApplyOverridesFailed");
    assert.match(clusterItem(b, "member2")?.message ?? "", /OverridePolicy fields\/settings rule 0 fieldOverrider\[0\]: field \/data\/config\.yaml is not valid YAML/);
    await sleep(2_000); // room for a broken copy that must not ship
    assert.equal((await data(m2, "settings"))?.data?.["config.yaml"], "log: info\nserver:\n  hosts:\n  - a.example\n  port: 9090\n", "member2 keeps the last good copy");

    // Fixed again, member2 catches up.
    await apply(fleet.control, configMap("settings", { "config.yaml": "server:\n  port: 1\n" }));
    await eventually("member2 holds the fixed, overridden YAML", () => data(m2, "settings"), (c) => c.data?.["config.yaml"] === "server:\n  port: 9090\n");
    await eventually("the binding shows member2 as desired", () => binding("settings"), (x) => clusterItem(x, "member2")?.applied === true && clusterItem(x, "member2")?.reason === "");
  });

  it("applies Karmada's deprecated top-level targetCluster + overriders as one rule", async () => {
    await apply(
      fleet.control,
      overridePolicy("legacy", {
        targetCluster: { clusterNames: ["member1"] },
        overriders: {
          plaintext: [{ path: "/data/region", operator: "add", value: "eu" }],
          fieldOverrider: [{ fieldPath: "/data/app.json", json: [{ subPath: "/debug", operator: "replace", value: true }] }],
        },
      }),
    );
    await apply(fleet.control, [configMap("legacy", { "app.json": '{"debug":false,"name":"x"}' }), propagate("legacy")].join("\n---\n"));
    const one = await eventually("member1 holds the overridden copy", () => data(m1, "legacy"), (c) => c.data?.region === "eu");
    assert.equal(one.data?.["app.json"], '{"debug":true,"name":"x"}');
    const two = await eventually("member2 holds the template's copy", () => data(m2, "legacy"), (c) => c.data?.["app.json"] !== undefined);
    assert.deepEqual(two.data, { "app.json": '{"debug":false,"name":"x"}' });
  });

  it("accepts a policy without overrideRules or with overrideRules: null (as Karmada's guides write them), which changes nothing, and refuses both forms at once", async () => {
    await apply(fleet.control, overridePolicy("plain", {}));
    await apply(fleet.control, overridePolicy("plain-null", { overrideRules: null }));
    await apply(fleet.control, [configMap("plain", { a: "1" }), propagate("plain"), configMap("plain-null", { a: "1" }), propagate("plain-null")].join("\n---\n"));
    for (const m of [m1, m2]) {
      for (const name of ["plain", "plain-null"]) assert.deepEqual((await eventually("the copy arrives", () => data(m, name), () => true)).data, { a: "1" });
    }
    await assert.rejects(apply(fleet.control, overridePolicy("both", { overrideRules: [], targetCluster: { clusterNames: ["member1"] } })), /overrideRules and targetCluster can't co-exist/);
  });
});
