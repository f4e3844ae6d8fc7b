// Admin roles and the admin revocation list (DESIGN §7, issue 20 item 12), against a real control
// plane, agent and clusters over mutual TLS: a viewer certificate reads but touches no token, no
// member and no Secret; a certificate added to --admin-revocation-list after the start is refused
// within seconds while other admins work, and a bad line refuses every admin call while agents are
// served as ever.
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type CommandResult, eventually, getJson, kubectl, runCommand } from "./helpers.ts";
import { ensureTestBundles } from "../env/test-bundles.ts";

const NS = "roles";
const FLOTILLA = (await ensureTestBundles()).flotilla;
const CTL = (await ensureTestBundles()).flotillactl;

const configMap = (name: string, value: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: NS }, data: { setting: value } });
const secret = JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "creds", namespace: NS }, stringData: { token: "viewer-must-not-see" } });
const policyFor = (kind: string, name: string) =>
  JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: `${kind.toLowerCase()}-${name}`, namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind, name }], placement: { clusterAffinity: { clusterNames: ["member1"] } } } });

interface ClusterJson {
  status?: { conditions?: { type: string; status: string }[] };
}

describe("admin roles and the admin revocation list", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let issued: string;
  let list: string;
  const flotillaCli = (args: string[]): Promise<CommandResult> => runCommand(process.execPath, [FLOTILLA, ...args], { env: { ...process.env, KUBECONFIG: "" } });
  /** flotillactl with the certificate in `dir` (admin.crt, admin.key), or the fleet's admin certificate. */
  const ctl = (args: string[], dir?: string): Promise<CommandResult> =>
    runCommand(process.execPath, [CTL, ...args, ...(dir === undefined ? [] : ["--cert", join(dir, "admin.crt"), "--key", join(dir, "admin.key")])], { cwd: issued, env: { ...process.env, FLOTILLA_STATE_DIR: fleet.root } });
  const certificate = async (user: string, role: "admin" | "viewer") => {
    const dir = join(issued, user);
    const r = await flotillaCli(["certs", "admin", "--dir", flotilla.certsDir, "--user", user, "--role", role, "--out", dir]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`\\(${role} ${user}, valid until `));
    return dir;
  };
  const member1Ready = async () => {
    const c = await getJson<ClusterJson>(fleet.control, ["cluster", "member1"]);
    return c?.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True") === true;
  };

  before(async () => {
    fleet = await startFleet({ members: 1 });
    issued = join(fleet.root, "issued");
    await mkdir(issued);
    // The list exists (empty but for a comment) when the control plane starts; entries come later.
    list = join(fleet.root, "admin-revoked.txt");
    await writeFile(list, "# revoked admin and viewer certificates\n");
    flotilla = await startFlotilla(fleet, { controlPlaneArgs: [`--admin-revocation-list=${list}`] });
    await kubectl(fleet.control, ["create", "namespace", NS]);
    for (const o of [configMap("settings", "fleet-value"), secret, policyFor("ConfigMap", "settings"), policyFor("Secret", "creds")]) await apply(fleet.control, o);
    const m1 = fleet.members[0] as Cluster;
    await eventually("the ConfigMap and the Secret reach member1", async () => ((await getJson(m1, ["configmap", "-n", NS, "settings"])) && (await getJson(m1, ["secret", "-n", NS, "creds"])) ? true : undefined), () => true);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("a viewer certificate lists, describes, renders, diffs and plans a ConfigMap, and reads its rollout", async () => {
    const vera = await certificate("vera", "viewer");
    assert.match(new X509Certificate(await readFile(join(vera, "admin.crt"))).subject, /O=flotilla:viewers/);
    const clusters = await ctl(["get", "clusters", "-o", "json"], vera);
    assert.equal(clusters.code, 0, clusters.stderr);
    assert.deepEqual((JSON.parse(clusters.stdout) as { name: string }[]).map((c) => c.name), ["member1"]);
    for (const args of [["get", "bindings", "-A"], ["get", "works", "--cluster", "member1"], ["describe", "configmap/settings", "-n", NS]]) {
      const r = await ctl(args, vera);
      assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
    }
    // rollout status is a read: a viewer's reaches the binding, whose policy has no spec.rollout.
    const rollout = await ctl(["rollout", "status", "configmap/settings", "-n", NS], vera);
    assert.equal(rollout.code, 1, rollout.stderr);
    assert.match(rollout.stderr, /^flotillactl: FAILED_PRECONDITION: no rollout: the policy that propagates ConfigMap roles\/settings has no spec\.rollout/);
    const works = await ctl(["get", "works", "--cluster", "member1"], vera);
    assert.match(works.stdout, /v1\/ConfigMap\/roles\/settings/);
    const render = await ctl(["render", "configmap/settings", "-n", NS, "--cluster", "member1", "-o", "json"], vera);
    assert.equal(render.code, 0, render.stderr);
    assert.equal(JSON.parse(render.stdout).data.setting, "fleet-value");
    const diff = await ctl(["diff", "configmap/settings", "-n", NS, "--cluster", "member1"], vera);
    assert.equal(diff.code, 0, diff.stderr);
    assert.match(diff.stderr, /no differences/);
    const file = join(issued, "settings.json");
    await writeFile(file, configMap("settings", "planned-value"));
    const plan = await ctl(["plan", "-f", file], vera);
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, /^ConfigMap roles\/settings\s+member1\s+changed/m);
  });

  it("a viewer certificate is refused tokens, unjoin, rollout commands and every view of a Secret, with PERMISSION_DENIED and exit 1; an admin is not", async () => {
    const vera = join(issued, "vera");
    const withSecret = join(issued, "with-secret.yaml");
    await writeFile(withSecret, [configMap("settings", "x"), secret].join("\n---\n"));
    const viewerMayNot = (what: string) => new RegExp(`^flotillactl: PERMISSION_DENIED: vera has a viewer certificate \\(O=flotilla:viewers\\), which may not ${what}`);
    const cases: { args: string[]; message: RegExp }[] = [
      { args: ["token", "create"], message: viewerMayNot("call createToken: bootstrap tokens, unjoin and rollout commands need an admin certificate \\(O=flotilla:admins\\)") },
      { args: ["token", "list"], message: viewerMayNot("call listTokens") },
      { args: ["token", "delete", "abcdef"], message: viewerMayNot("call deleteToken") },
      { args: ["unjoin", "member1"], message: viewerMayNot("call unjoin") },
      { args: ["unjoin", "member1", "--force"], message: viewerMayNot("call unjoin") },
      { args: ["rollout", "pause", "configmap/settings", "-n", NS], message: viewerMayNot("call rollout: bootstrap tokens, unjoin and rollout commands need an admin certificate") },
      { args: ["rollout", "approve", "configmap/settings", "-n", NS, "--group", "canary"], message: viewerMayNot("call rollout") },
      { args: ["render", "secret/creds", "-n", NS, "--cluster", "member1"], message: viewerMayNot("render a Secret \\(Secret roles/creds\\): Secrets need an admin certificate") },
      { args: ["render", "secrets/creds", "-n", NS, "--cluster", "member1", "-o", "json"], message: viewerMayNot("render a Secret") },
      { args: ["diff", "secret/creds", "-n", NS, "--cluster", "member1"], message: viewerMayNot("diff a Secret \\(Secret roles/creds\\)") },
      { args: ["plan", "-f", withSecret], message: viewerMayNot("plan a Secret \\(Secret roles/creds\\)") },
    ];
    for (const c of cases) {
      const r = await ctl(c.args, vera);
      assert.equal(r.code, 1, `${c.args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, c.message, c.args.join(" "));
      assert.equal(r.stdout, "", `${c.args.join(" ")}: nothing on stdout`);
      assert.ok(!r.stderr.includes("viewer-must-not-see"), "no Secret value");
    }
    assert.ok(await member1Ready(), "member1 is still registered and Ready: the refused unjoin did nothing");
    // The fleet's admin certificate (O=flotilla:admins, made as before) may do all of it.
    for (const args of [["render", "secret/creds", "-n", NS, "--cluster", "member1"], ["plan", "-f", withSecret], ["token", "list"]]) {
      const r = await ctl(args);
      assert.equal(r.code, 0, `admin ${args.join(" ")}: ${r.stderr}`);
    }
    // An admin's rollout command gets past the access check to the binding (read fresh), which has no rollout.
    const pause = await ctl(["rollout", "pause", "configmap/settings", "-n", NS]);
    assert.equal(pause.code, 1, pause.stderr);
    assert.match(pause.stderr, /^flotillactl: FAILED_PRECONDITION: no rollout: the policy that propagates ConfigMap roles\/settings has no spec\.rollout/);
    const none = await ctl(["rollout", "status", "configmap/nope", "-n", NS]);
    assert.match(none.stderr, /^flotillactl: NOT_FOUND: ConfigMap roles\/nope has no binding/);
  });

  it("a certificate revoked after the start is refused within seconds; other admins keep working and agents stay Ready", async () => {
    const mallory = await certificate("mallory", "admin");
    const before = await ctl(["get", "clusters"], mallory);
    assert.equal(before.code, 0, before.stderr);

    const revoke = await flotillaCli(["certs", "revoke", "--cert", join(mallory, "admin.crt"), "--list", list]);
    assert.equal(revoke.code, 0, revoke.stderr);
    assert.match(revoke.stdout, /revoked CN=mallory, O=flotilla:admins \(SHA-256 fingerprint [0-9A-F:]{95}\)/);
    const written = await readFile(list, "utf8");
    assert.match(written, /^[0-9A-F:]{95} # CN=mallory, O=flotilla:admins, serial [0-9A-F]+, revoked \d{4}-\d\d-\d\dT/m, "the fingerprint, with a comment naming the certificate and the time");
    const since = Date.now();
    const refused = await eventually("mallory refused", () => ctl(["get", "clusters"], mallory), (r) => r.code !== 0, 15_000);
    const took = Date.now() - since;
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^flotillactl: PERMISSION_DENIED: certificate revoked: admin mallory's certificate is in the admin revocation list \(SHA-256 fingerprint [0-9A-F]{64}\)/);
    assert.ok(took < 10_000, `refused ${took} ms after the list changed`);

    // A viewer listed by serial number (as `openssl x509 -serial` prints it) is refused too.
    const vera = join(issued, "vera");
    await appendFile(list, `serial=${new X509Certificate(await readFile(join(vera, "admin.crt"))).serialNumber}  # vera\n`);
    const veraRefused = await eventually("vera refused", () => ctl(["get", "clusters"], vera), (r) => r.code !== 0, 15_000);
    assert.match(veraRefused.stderr, /PERMISSION_DENIED: certificate revoked: viewer vera's certificate is in the admin revocation list \(serial number [0-9A-F]+\)/);

    const admin = await ctl(["get", "clusters", "-o", "json"]);
    assert.equal(admin.code, 0, `an admin not in the list works: ${admin.stderr}`);
    assert.deepEqual((JSON.parse(admin.stdout) as { name: string; ready: boolean; connected: boolean }[]).map((c) => [c.name, c.ready, c.connected]), [["member1", true, true]]);
    assert.ok(await member1Ready(), "member1 Ready");
    assert.equal(flotilla.agents.get("member1")?.process.running, true, "the agent never stopped");
  });

  it("a bad line refuses every admin call (and says where) until it is fixed, while agents are served", async () => {
    const good = await readFile(list, "utf8");
    await appendFile(list, "mallory-again\n");
    const badLine = good.split("\n").length;
    const refused = await eventually("the fleet's admin refused", () => ctl(["get", "clusters"]), (r) => r.code !== 0, 15_000);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, new RegExp(`PERMISSION_DENIED: the Admin API refuses every certificate until the admin revocation list can be read: .*admin-revoked\\.txt line ${badLine} "mallory-again": not hex`));
    const log = await eventually("the control plane logs the bad line", () => readFile(join(flotilla.logsDir, "control-plane-1.log"), "utf8"), (t) => t.includes("mallory-again"));
    assert.match(log, /neither a serial number nor a SHA-256 fingerprint; refusing every admin call/);
    const certsRevoke = await flotillaCli(["certs", "revoke", "--cert", join(flotilla.certsDir, "admin.crt"), "--list", list]);
    assert.equal(certsRevoke.code, 1);
    assert.match(certsRevoke.stderr, /line \d+ "mallory-again": not hex.*fix it first/);

    // Agents are served as ever: a change still reaches member1.
    await apply(fleet.control, configMap("settings", "while-the-list-is-bad"));
    const m1 = fleet.members[0] as Cluster;
    await eventually("member1 gets the change", () => getJson<{ data: { setting: string } }>(m1, ["configmap", "-n", NS, "settings"]), (c) => c.data.setting === "while-the-list-is-bad");
    assert.ok(await member1Ready(), "member1 Ready");

    await writeFile(list, good);
    const back = await eventually("the fleet's admin works again", () => ctl(["get", "clusters"]), (r) => r.code === 0, 15_000);
    assert.match(back.stdout, /member1/);
    const stillRevoked = await ctl(["get", "clusters"], join(issued, "mallory"));
    assert.match(stillRevoked.stderr, /PERMISSION_DENIED: certificate revoked/);
  });
});
