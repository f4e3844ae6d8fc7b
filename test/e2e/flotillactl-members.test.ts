// End to end (issue 41): flotillactl's member commands against a real fleet whose control plane
// serves the member API. kubectl with `flotillactl kubeconfig` reads a member through the
// control plane; `get` merges both members' own tables with a CLUSTER column and goes on when a
// member's agent is away; `events` shows a propagated Deployment's events (its own, its
// ReplicaSet's, its pods') from both members and watches new ones; `logs` prints and follows every
// pod's log in both members (kwok serves them from a file per member); and `kubectl flotilla` is
// flotillactl as kubectl's plugin.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { ensureBinaries } from "../env/binaries.ts";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { goCommandEnv } from "../env/managed-process.ts";
import { bindMemberApiGroups } from "../env/member-api-rbac.ts";
import { appendPodLog } from "../env/pod-logs.ts";
import { ensureTestBundles } from "../env/test-bundles.ts";
import { issueAdminCertificate } from "../../shared/pki.ts";
import { apply, type CommandResult, deploymentJson, eventually, kubectl, placementPolicyJson, runCommand } from "./helpers.ts";

const NS = "ctl-members";
const CTL = (await ensureTestBundles()).flotillactl;
const repo = fileURLToPath(new URL("../..", import.meta.url));

describe("flotillactl through the member API", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let kubectlBin: string;
  const ctl = (args: string[], env: Record<string, string> = {}): Promise<CommandResult> => runCommand(process.execPath, [CTL, ...args], { cwd: fleet.root, env: { ...process.env, FLOTILLA_STATE_DIR: fleet.root, ...env }, timeoutMs: 60_000 });

  before(async () => {
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet, { memberApi: true });
    kubectlBin = join(await ensureBinaries(), "kubectl");
    for (const m of fleet.members) {
      // Each member's admin decides what Flotilla's callers may do there (docs/guides/member-api.md).
      await kubectl(m, ["create", "clusterrole", "fleet-reader", "--verb=get,list,watch", "--resource=pods,events,deployments.apps,replicasets.apps"]);
      await bindMemberApiGroups(m.kubeconfigPath, { admins: "cluster-admin", viewers: "fleet-reader" });
    }
    await kubectl(fleet.control, ["create", "namespace", NS]);
    await apply(fleet.control, deploymentJson("web", NS, 2));
    await apply(fleet.control, placementPolicyJson("web", NS, ["member1", "member2"]));
    for (const m of fleet.members as Cluster[]) {
      await eventually(`web's pods run in ${m.name}`, async () => (await kubectl(m, ["get", "pods", "-n", NS, "-l", "app=web", "-o", "name"])).trim().split("\n").filter(Boolean), (p) => p.length === 2);
    }
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("gives kubectl a kubeconfig that reads a member through the control plane as the caller", async () => {
    const file = join(fleet.root, "member1-through-cp.kubeconfig");
    const made = await ctl(["kubeconfig", "--cluster", "member1", "--output-file", file]);
    assert.equal(made.code, 0, made.stderr);
    assert.equal((await stat(file)).mode & 0o777, 0o600, "it holds the caller's key");
    const config = await readFile(file, "utf8");
    assert.match(config, /server: https:\/\/127\.0\.0\.1:\d+\/clusters\/member1\n/);
    assert.match(config, /tls-server-name: localhost/);
    assert.match(config, /current-context: flotilla-member1/);
    const pods = await runCommand(kubectlBin, ["--kubeconfig", file, "get", "pods", "-n", NS, "-o", "name"], { env: goCommandEnv() });
    assert.equal(pods.code, 0, pods.stderr);
    assert.equal(pods.stdout.trim().split("\n").length, 2);
    // As the guide shows it: the kubeconfig never touches the disk.
    const substituted = await runCommand("bash", ["-c", `"$KUBECTL" --kubeconfig <("$NODE" "$CTL" kubeconfig --cluster member2) get pods -n ${NS} -o name`], {
      env: { ...goCommandEnv(), KUBECTL: kubectlBin, NODE: process.execPath, CTL, FLOTILLA_STATE_DIR: fleet.root },
      cwd: fleet.root,
    });
    assert.equal(substituted.code, 0, substituted.stderr);
    assert.equal(substituted.stdout.trim().split("\n").length, 2);
    const unknown = await ctl(["kubeconfig", "--cluster", "nowhere"]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /cluster "nowhere" is not registered/);
  });

  it("gets the members' pods as one table with a CLUSTER column, and the fleet's own kinds as before", async () => {
    const r = await ctl(["get", "pods", "-n", NS]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split("\n");
    assert.match(lines[0] as string, /^CLUSTER\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
    assert.deepEqual(lines.slice(1).map((l) => l.split(/\s+/)[0]), ["member1", "member1", "member2", "member2"]);
    const wide = await ctl(["get", "deploy", "-A", "-o", "wide"]);
    assert.equal(wide.code, 0, wide.stderr);
    assert.match(wide.stdout, /^CLUSTER\s+NAMESPACE\s+NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\n/);
    assert.match(wide.stdout, new RegExp(`^member2\\s+${NS}\\s+web\\s+2/2`, "m"));
    const json = await ctl(["get", "deployments.apps", "web", "-n", NS, "--clusters", "member2", "-o", "json"]);
    assert.equal(json.code, 0, json.stderr);
    const obj = JSON.parse(json.stdout) as { kind: string; metadata: { annotations: Record<string, string> } };
    assert.equal(obj.kind, "Deployment");
    assert.equal(obj.metadata.annotations["flotilla.dev/cluster"], "member2");
    const clusters = await ctl(["get", "clusters"]);
    assert.match(clusters.stdout, /^NAME\s+READY\s+CONNECTED/, "get clusters is still the fleet's");
    const nothing = await ctl(["get", "gadgets"]);
    assert.equal(nothing.code, 1);
    assert.match(nothing.stderr, /cluster member1: the member serves no resource named "gadgets"/);
  });

  it("says on stderr which member failed and why, showing the others; a viewer's refusal is the member's", async () => {
    const caPair = { certPem: await readFile(join(flotilla.certsDir, "ca.crt"), "utf8"), keyPem: await readFile(join(flotilla.certsDir, "ca.key"), "utf8") };
    const vera = await issueAdminCertificate(caPair, "vera", 3_600_000, "viewer");
    await writeFile(join(fleet.root, "vera.crt"), vera.certPem);
    await writeFile(join(fleet.root, "vera.key"), vera.keyPem, { mode: 0o600 });
    const asVera = { FLOTILLA_ADMIN_CERT: join(fleet.root, "vera.crt"), FLOTILLA_ADMIN_KEY: join(fleet.root, "vera.key") };
    const pods = await ctl(["get", "pods", "-n", NS], asVera);
    assert.equal(pods.code, 0, pods.stderr);
    const nodes = await ctl(["get", "nodes"], asVera);
    assert.equal(nodes.code, 1, "the viewers' role reads no nodes in either member");
    assert.match(nodes.stderr, /cluster member1: nodes is forbidden: User "flotilla:viewer:vera"/);

    await flotilla.stopAgent("member2");
    try {
      const r = await eventually("member2's agent is away", () => ctl(["get", "pods", "-n", NS]), (x) => /cluster member2:/.test(x.stderr));
      assert.equal(r.code, 0, "member1 still answered");
      assert.match(r.stderr, /cluster member2: the agent of member2 is not connected/);
      assert.deepEqual([...new Set(r.stdout.trim().split("\n").slice(1).map((l) => l.split(/\s+/)[0]))], ["member1"]);
      const only = await ctl(["get", "pods", "-n", NS, "--clusters", "member2"]);
      assert.equal(only.code, 1);
    } finally {
      await flotilla.startAgent("member2");
    }
    await eventually("member2 answers again", () => ctl(["get", "pods", "-n", NS, "--clusters", "member2"]), (x) => x.code === 0);
  });

  it("shows a Deployment's events in both members, its own, its ReplicaSet's and its pods', and watches new ones", async () => {
    const r = await eventually("the events of web", () => ctl(["events", "deployment/web", "-n", NS]), (x) => x.code === 0 && /member1 .*replicaset\//.test(x.stdout) && /member2 .*pod\/web-/.test(x.stdout));
    assert.match(r.stdout, /^CLUSTER\s+LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n/);
    assert.match(r.stdout, /^member\d\s+\S+\s+Normal\s+ScalingReplicaSet\s+deployment\/web\s+Scaled up/m);
    assert.match(r.stdout, /^member\d\s+\S+\s+Normal\s+Scheduled\s+pod\/web-/m);

    const child = spawn(process.execPath, [CTL, "events", "deploy/web", "-n", NS, "-w"], { cwd: fleet.root, env: { ...process.env, FLOTILLA_STATE_DIR: fleet.root }, stdio: ["ignore", "pipe", "pipe"] });
    let seen = "";
    child.stdout.on("data", (c: Buffer) => (seen += c.toString()));
    try {
      await eventually("the watch printed the events so far", async () => (seen.includes("ScalingReplicaSet") ? true : undefined), () => true, 30_000);
      const before = new Set(seen.split("\n"));
      await apply(fleet.control, deploymentJson("web", NS, 3));
      await eventually("the watch prints a new pod's events in both members", async () => {
        const fresh = seen.split("\n").filter((l) => !before.has(l));
        return fresh.some((l) => /^member1 .*pod\/web-/.test(l)) && fresh.some((l) => /^member2 .*pod\/web-/.test(l)) ? true : undefined;
      }, () => true, 60_000);
    } finally {
      child.kill("SIGINT");
    }
  });

  it("prints the logs of every pod of the workload in each member, each line prefixed, and follows new lines", async () => {
    // kwok serves every container's log from one file per member (test/env/pod-logs.ts).
    for (const m of fleet.members) await appendPodLog(m, `hello from ${m.name}`);
    const r = await ctl(["logs", "deployment/web", "-n", NS, "--tail", "1"]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split("\n");
    for (const m of ["member1", "member2"]) {
      const mine = lines.filter((l) => l.startsWith(`[${m} `));
      assert.ok(mine.length >= 2, `${m}: ${r.stdout}`);
      for (const l of mine) assert.match(l, new RegExp(`^\\[${m} web-[a-z0-9]+-[a-z0-9]+/c\\] hello from ${m}$`));
    }

    const child = spawn(process.execPath, [CTL, "logs", "deploy/web", "-n", NS, "-f", "--tail", "0", "--clusters", "all"], { cwd: fleet.root, env: { ...process.env, FLOTILLA_STATE_DIR: fleet.root }, stdio: ["ignore", "pipe", "pipe"] });
    let seen = "";
    let errors = "";
    child.stdout.on("data", (c: Buffer) => (seen += c.toString()));
    child.stderr.on("data", (c: Buffer) => (errors += c.toString()));
    try {
      await eventually("both members' lines followed", async () => {
        for (const m of fleet.members) await appendPodLog(m, `later in ${m.name}`);
        return /^\[member1 \S+\] later in member1$/m.test(seen) && /^\[member2 \S+\] later in member2$/m.test(seen) ? true : undefined;
      }, () => true, 30_000);
    } finally {
      child.kill("SIGINT");
    }
    assert.equal(errors, "");

    const pod = (await kubectl(fleet.members[0] as Cluster, ["get", "pods", "-n", NS, "-l", "app=web", "-o", "name"])).trim().split("\n")[0]?.replace("pod/", "");
    const one = await ctl(["logs", `pod/${pod}`, "-n", NS, "--cluster", "member1", "--tail", "1"]);
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, new RegExp(`^\\[member1 ${pod}/c\\] `));
    const noContainer = await ctl(["logs", `pod/${pod}`, "-n", NS, "--cluster", "member1", "-c", "nope"]);
    assert.equal(noContainer.code, 1);
    assert.match(noContainer.stderr, new RegExp(`cluster member1: pod ${pod}: no container nope \\(it has c\\)`));
    const notTemplate = await ctl(["logs", `pod/${pod}`, "-n", NS]);
    assert.equal(notTemplate.code, 1);
    assert.match(notTemplate.stderr, /in the control cluster: name the members with --cluster or --clusters/);
  });

  it("is kubectl's plugin as kubectl-flotilla", async () => {
    const dir = await mkdtemp(join(fleet.root, "plugin-"));
    await symlink(join(repo, "bin", "flotillactl.js"), join(dir, "kubectl-flotilla"));
    const env = { ...goCommandEnv(), PATH: `${dir}:${process.env.PATH ?? ""}`, FLOTILLA_STATE_DIR: fleet.root };
    const r = await runCommand(kubectlBin, ["flotilla", "get", "pods", "-n", NS, "--clusters", "member1"], { env, cwd: fleet.root });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^CLUSTER\s+NAME/);
    const bad = await runCommand(kubectlBin, ["flotilla", "get", "pods", "--nope"], { env, cwd: fleet.root });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^kubectl flotilla: unknown flag --nope/);
  });
});
