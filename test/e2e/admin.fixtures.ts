// What admin.test.ts and admin-diff.test.ts share: a 2-member fleet where Deployment adm/web runs
// on both members, member2 with an image override, and flotillactl run against it from a
// directory with no .flotilla in it (the fleet found through FLOTILLA_STATE_DIR, no flags).
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type CommandResult, deploymentJson, eventually, getJson, kubectl, placementPolicyJson, runCommand } from "./helpers.ts";
import { ensureTestBundles } from "../env/test-bundles.ts";

export const NS = "adm";
export const CTL = (await ensureTestBundles()).flotillactl;

export const deployment = (name: string) => deploymentJson(name, NS, 2, "nginx:1.25");
export const policy = (name: string, clusters: string[]) => placementPolicyJson(name, NS, clusters);
export const override = (name: string, target: string, overriders: object) =>
  JSON.stringify({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "OverridePolicy",
    metadata: { name, namespace: NS },
    spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: target }], overrideRules: [{ targetCluster: { clusterNames: ["member2"] }, overriders }] },
  });

/** The file's fleet (started in its before(), stopped in its after()) and flotillactl against it. */
export interface AdminFleet {
  fleet: Fleet;
  flotilla: Flotilla;
  /** A working directory with no .flotilla in it, inside the fleet's root so its teardown removes it. */
  empty: string;
  ctl(args: string[], env?: Record<string, string>): Promise<CommandResult>;
  /** flotillactl with `-o json`: asserts exit 0 and parses stdout. */
  json<T>(args: string[]): Promise<T>;
}

/** Registers the file's before() and after() hooks; call at the top of its describe. */
export function adminFleet(): AdminFleet {
  const a = {} as AdminFleet;
  a.ctl = (args, env = {}) => runCommand(process.execPath, [CTL, ...args], { cwd: a.empty, env: { ...process.env, FLOTILLA_STATE_DIR: a.fleet.root, ...env } });
  a.json = async <T>(args: string[]): Promise<T> => {
    const r = await a.ctl([...args, "-o", "json"]);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as T;
  };
  before(async () => {
    a.fleet = await startFleet({ members: 2 });
    a.flotilla = await startFlotilla(a.fleet);
    a.empty = join(a.fleet.root, "empty-cwd");
    await mkdir(a.empty);
    await kubectl(a.fleet.control, ["create", "namespace", NS]);
    await apply(a.fleet.control, deployment("web"));
    await apply(a.fleet.control, policy("web", ["member1", "member2"]));
    await apply(a.fleet.control, override("web-tag", "web", { imageOverrider: [{ component: "Tag", operator: "replace", value: "1.26" }] }));
    const m2 = a.fleet.members[1] as Cluster;
    await eventually("member2 runs the overridden image", () => getJson<{ spec: { template: { spec: { containers: { image: string }[] } } } }>(m2, ["deploy", "-n", NS, "web"]), (d) => d.spec.template.spec.containers[0]?.image === "nginx:1.26");
  });
  after(async () => {
    await a.flotilla?.stop();
    await a.fleet?.stop();
  });
  return a;
}
