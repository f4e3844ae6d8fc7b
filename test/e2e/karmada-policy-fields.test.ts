// Issue 26: Karmada v1.19's PropagationPolicy fields on real members: schedulerName,
// dependentOverrides, activationPreference Lazy, schedulePriority, a selector naming the policy's
// own namespace, and `flotillactl get pp`.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type BindingJson, type CommandResult, condition, eventually, getJson, kubectl, runCommand, sleep } from "./helpers.ts";
import { ensureTestBundles } from "../env/test-bundles.ts";

const CTL = (await ensureTestBundles()).flotillactl;
const NS = "karmada-fields";

interface ConfigMapJson {
  data?: Record<string, string>;
}

describe("Karmada v1.19 PropagationPolicy fields", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let m1: Cluster;
  let m2: Cluster;
  const ctl = (args: string[]): Promise<CommandResult> => runCommand(process.execPath, [CTL, ...args], { env: { ...process.env, FLOTILLA_STATE_DIR: fleet.root, FLOTILLA_CONTROL_KUBECONFIG: fleet.control.kubeconfigPath } });
  const configMap = (name: string, data: Record<string, string> = { a: "1" }) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: NS }, data });
  const policy = (name: string, clusters: string[], spec: Record<string, unknown> = {}) =>
    JSON.stringify({
      apiVersion: "flotilla.dev/v1alpha1",
      kind: "PropagationPolicy",
      metadata: { name, namespace: NS },
      spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name }], placement: { clusterAffinity: { clusterNames: clusters } }, ...spec },
    });
  const binding = (name: string) => getJson<BindingJson>(fleet.control, ["rb", "-n", NS, `${name}-configmap`]);
  const inMember = (m: Cluster, name: string) => getJson<ConfigMapJson>(m, ["configmap", "-n", NS, name]);

  before(async () => {
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet);
    [m1, m2] = fleet.members as [Cluster, Cluster];
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("a schedulerName Flotilla does not serve schedules nothing and says SchedulerNameNotServed", async () => {
    await apply(fleet.control, configMap("other-scheduler"));
    await apply(fleet.control, policy("other-scheduler", ["member1"], { schedulerName: "volcano" }));
    const b = await eventually("the binding says why", () => binding("other-scheduler"), (x) => condition(x, "Scheduled")?.reason === "SchedulerNameNotServed");
    assert.deepEqual(b.spec.clusters, []);
    assert.match(condition(b, "Scheduled")?.message ?? "", /asks for schedulerName "volcano"; Flotilla serves only "default-scheduler"/);
    assert.equal(await inMember(m1, "other-scheduler"), undefined);
  });

  it("dependentOverrides: nothing ships until the OverridePolicy exists, then the copy ships with its override", async () => {
    await apply(fleet.control, configMap("needs-op"));
    await apply(fleet.control, policy("needs-op", ["member1"], { dependentOverrides: ["needs-op"] }));
    const waiting = await eventually("the binding waits", () => binding("needs-op"), (x) => condition(x, "Scheduled")?.reason === "DependentOverridesMissing");
    assert.match(condition(waiting, "Scheduled")?.message ?? "", /waits for its dependentOverrides: OverridePolicy needs-op not found/);
    assert.equal(await inMember(m1, "needs-op"), undefined);
    await apply(
      fleet.control,
      JSON.stringify({
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "OverridePolicy",
        metadata: { name: "needs-op", namespace: NS },
        spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "needs-op", namespace: NS }], overrideRules: [{ overriders: { plaintext: [{ path: "/data/a", operator: "replace", value: "overridden" }] } }] },
      }),
    );
    const cm = await eventually("member1 gets the overridden copy", () => inMember(m1, "needs-op"), (x) => x.data?.a === "overridden");
    assert.equal(cm.data?.a, "overridden", "the first copy a member sees already has the override");
    await eventually("Scheduled", () => binding("needs-op"), (x) => condition(x, "Scheduled")?.status === "True");
  });

  it("activationPreference Lazy: a policy change waits for the template's next change", async () => {
    await apply(fleet.control, configMap("lazy"));
    await apply(fleet.control, policy("lazy", ["member1"], { activationPreference: "Lazy" }));
    await eventually("member1 has it", () => inMember(m1, "lazy"), () => true);
    await apply(fleet.control, policy("lazy", ["member2"], { activationPreference: "Lazy" }));
    // The binding controller has seen the policy change when its status reflects it; give it time to (wrongly) act.
    await sleep(3_000);
    const held = await binding("lazy");
    assert.deepEqual(held?.spec.clusters.map((c) => c.name), ["member1"], "the policy change waits");
    assert.equal(await inMember(m2, "lazy"), undefined);
    await apply(fleet.control, configMap("lazy", { a: "2" }));
    await eventually("member2 gets it once the template changes", () => inMember(m2, "lazy"), (x) => x.data?.a === "2");
    const moved = await eventually("the binding follows the policy", () => binding("lazy"), (x) => x.spec.clusters.map((c) => c.name).join() === "member2");
    assert.ok(moved);
  });

  it("schedulePriority: a missing PriorityClass holds the policy; once it exists the binding records its value", async () => {
    await apply(fleet.control, configMap("priority"));
    await apply(fleet.control, policy("priority", ["member1"], { schedulePriority: { priorityClassSource: "KubePriorityClass", priorityClassName: "flotilla-e2e-high" } }));
    const waiting = await eventually("the binding waits", () => binding("priority"), (x) => condition(x, "Scheduled")?.reason === "PriorityClassNotFound");
    assert.match(condition(waiting, "Scheduled")?.message ?? "", /PriorityClass flotilla-e2e-high, which does not exist/);
    assert.equal(await inMember(m1, "priority"), undefined);
    await apply(fleet.control, JSON.stringify({ apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: "flotilla-e2e-high" }, value: 100000 }));
    await eventually("member1 gets it", () => inMember(m1, "priority"), () => true);
    const b = await eventually("the binding records the priority", () => getJson<BindingJson & { spec: { schedulePriority?: { priority: number } } }>(fleet.control, ["rb", "-n", NS, "priority-configmap"]), (x) => x.spec.schedulePriority !== undefined);
    assert.deepEqual(b.spec.schedulePriority, { priority: 100000 });
  });

  it("a selector may name the policy's own namespace; another is refused at apply time", async () => {
    await apply(fleet.control, configMap("own-ns"));
    await apply(fleet.control, JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "own-ns", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "own-ns", namespace: NS }] } }));
    await eventually("both members have it", async () => ((await inMember(m1, "own-ns")) && (await inMember(m2, "own-ns")) ? true : undefined), () => true);
    const refused = await kubectl(fleet.control, ["apply", "-f", "-"], JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "other-ns", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", namespace: "kube-system" }] } })).then(
      () => "",
      (err: Error) => err.message,
    );
    assert.match(refused, /flotilla-policy-namespace/);
    assert.match(refused, /not kube-system/);
  });

  it("flotillactl get pp lists the policies, as karmadactl get pp does", async () => {
    const r = await ctl(["get", "pp", "-n", NS]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^NAMESPACE\s+NAME\s+SELECTORS\s+PRIORITY\s+AGE/m);
    assert.match(r.stdout, new RegExp(`^${NS}\\s+lazy\\s+ConfigMap/lazy\\s+0\\s`, "m"));
    const json = await ctl(["get", "propagationpolicies", "-A", "-o", "json"]);
    assert.ok((JSON.parse(json.stdout) as { metadata: { name: string } }[]).some((p) => p.metadata.name === "needs-op"));
    const none = await ctl(["get", "cop"]);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout.trim(), "no clusteroverridepolicies");
  });
});
