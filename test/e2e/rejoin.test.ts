// Issue 20 item 4 on real clusters: a member that joins again keeps its objects. Its agent is
// gone (in one case its certificate expires meanwhile), its Cluster is force-unjoined (the member
// keeps what Flotilla applied), templates change meanwhile, and the member registers again with a
// bootstrap token (a new Cluster uid, a new certificate). The objects Flotilla had applied are adopted in place: the same uids, nothing
// deleted, updated to what the templates say now. With --require-acceptance nothing is applied
// or deleted until `flotillactl accept`, then the same adoption in place. An object placed by a
// Cluster label, which the new Cluster lacks, stays until the label is back (issue 37 item 7). Two agents of one fleet
// sharing one member: shared-member.test.ts.
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type CommandResult, deletions, deploymentJson, eventually, getJson, kubectl, runCommand, sleep } from "./helpers.ts";
import { ensureTestBundles } from "../env/test-bundles.ts";

const CTL = (await ensureTestBundles()).flotillactl;
const NS = "rejoin";
const WORK = "flotilla.dev/work";
/** The hub's --cluster-ready-settle-period in this file (10 s in production). */
const READY_SETTLE_MS = 3_000;
/** Longer than READY_SETTLE_MS: any removal the hub would judge for the returned cluster is sent and acted on by then. */
const SETTLE_MS = READY_SETTLE_MS + 2_000;

interface ObjectJson {
  metadata: { name: string; uid: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  data?: Record<string, string>;
  spec?: { replicas?: number };
}
interface ClusterJson {
  metadata: { uid: string };
  status?: { conditions?: { type: string; status: string; reason: string }[] };
}

const configMap = (name: string, a: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: NS }, data: { a } });
/** Every cluster, for each of the test's templates. */
const policy = JSON.stringify({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "PropagationPolicy",
  metadata: { name: "all", namespace: NS },
  spec: {
    resourceSelectors: [
      ...["same", "changed", "recreated", "dropped"].map((name) => ({ apiVersion: "v1", kind: "ConfigMap", name })),
      { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
    ],
  },
});
/** A ConfigMap placed by a Cluster label an admin set (issue 37 item 7): a new registration lacks it. */
const byLabel = JSON.stringify({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "PropagationPolicy",
  metadata: { name: "prod", namespace: NS },
  spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "labelled" }], placement: { clusterAffinity: { labelSelector: { matchLabels: { env: "prod" } } } } },
});
const condition = (c: ClusterJson | undefined, type: string) => c?.status?.conditions?.find((x) => x.type === type);

/**
 * One fleet of one member, its objects applied by Flotilla; the member then leaves by force and
 * registers again. `expired`: it first registered with a token too, and its stored certificate
 * expires while its agent is down (it registers again from the Secret's expired credentials);
 * else its agent used certificate files, and the member has no Secret yet.
 */
function rejoining(opts: { requireAcceptance: boolean; expired: boolean }) {
  const { requireAcceptance, expired } = opts;
  const s = {} as { fleet: Fleet; flotilla: Flotilla; m1: Cluster; uids: Record<string, string>; oldClusterUid: string };
  const ctl = (args: string[]): Promise<CommandResult> =>
    runCommand(process.execPath, [CTL, ...args], { env: { ...process.env, FLOTILLA_STATE_DIR: s.fleet.root, FLOTILLA_CONTROL_KUBECONFIG: s.fleet.control.kubeconfigPath } });
  const member = (kind: string, name: string) => getJson<ObjectJson>(s.m1, [kind, "-n", NS, name]);
  const cluster = () => getJson<ClusterJson>(s.fleet.control, ["cluster", "member1"]);
  /** The certificate in the agent's credentials Secret in the member. */
  const storedCertificate = async () => {
    const secret = await getJson<{ data?: Record<string, string> }>(s.m1, ["secret", "-n", "flotilla-system", "flotilla-agent-credentials"]);
    const pem = secret?.data?.["tls.crt"];
    return pem === undefined ? undefined : new X509Certificate(Buffer.from(pem, "base64"));
  };

  before(async () => {
    s.fleet = await startFleet({ members: 1 });
    // Certificates it registers for last 20 s: one expires while the agent is down.
    s.flotilla = await startFlotilla(s.fleet, { requireAcceptance, controlPlaneArgs: [`--cluster-ready-settle-period=${READY_SETTLE_MS}ms`], ...(expired ? { unregistered: ["member1"], agentCertValidity: "20s" } : {}) });
    [s.m1] = s.fleet.members as [Cluster];
    if (expired) {
      const first = await ctl(["token", "create", "--ttl", "1h"]);
      assert.equal(first.code, 0, first.stderr);
      await s.flotilla.startAgent("member1", { bootstrapToken: first.stdout.trim() });
      await eventually("member1 registered and Ready", cluster, (x) => condition(x, "Ready")?.status === "True", 60_000);
    }
    if (requireAcceptance) assert.equal((await ctl(["accept", "member1"])).code, 0);
    await kubectl(s.fleet.control, ["create", "namespace", NS]);
    for (const name of ["same", "changed", "recreated", "dropped"]) await apply(s.fleet.control, configMap(name, "1"));
    await apply(s.fleet.control, deploymentJson("web", NS, 1));
    await apply(s.fleet.control, policy);
    await kubectl(s.fleet.control, ["label", "cluster", "member1", "env=prod"]);
    await apply(s.fleet.control, configMap("labelled", "1"));
    await apply(s.fleet.control, byLabel);
    s.uids = {};
    for (const [kind, name] of [["configmap", "same"], ["configmap", "changed"], ["configmap", "recreated"], ["configmap", "dropped"], ["configmap", "labelled"], ["deployment", "web"]] as const) {
      s.uids[name] = (await eventually(`${name} in member1`, () => member(kind, name), (o) => o.metadata.labels?.[WORK] !== undefined)).metadata.uid;
    }
    s.oldClusterUid = (await cluster())?.metadata.uid ?? "";

    // The agent is gone (a lost node, an expired certificate), and an admin removes the Cluster by force.
    await s.flotilla.stopAgent("member1");
    const r = await ctl(["unjoin", "member1", "--force"]);
    assert.equal(r.code, 0, r.stderr);
    await eventually("the Cluster gone", () => cluster().then((c) => (c === undefined ? "gone" : undefined)), () => true, 30_000);
    const stored = expired ? await storedCertificate() : undefined;
    if (expired) {
      assert.ok(stored, "the member keeps its credentials Secret");
      await sleep(Math.max(0, Date.parse(stored.validTo) - Date.now()) + 1000);
    }
    // Meanwhile: one template changes, one is deleted and made again (a new uid), one is deleted, the Deployment scales.
    await apply(s.fleet.control, configMap("changed", "2"));
    await kubectl(s.fleet.control, ["delete", "configmap", "-n", NS, "recreated"]);
    await apply(s.fleet.control, configMap("recreated", "again"));
    await kubectl(s.fleet.control, ["delete", "configmap", "-n", NS, "dropped"]);
    await apply(s.fleet.control, deploymentJson("web", NS, 2));
    await apply(s.fleet.control, configMap("labelled", "2"));
    for (const name of ["same", "changed", "recreated", "dropped", "labelled", "web"]) {
      assert.equal((await member(name === "web" ? "deployment" : "configmap", name))?.metadata.uid, s.uids[name], `${name} stays in the member after the forced unjoin`);
    }

    // The member registers again with a bootstrap token: a new Cluster, a new certificate.
    const token = await ctl(["token", "create", "--ttl", "1h"]);
    assert.equal(token.code, 0, token.stderr);
    await s.flotilla.startAgent("member1", { bootstrapToken: token.stdout.trim() });
    const c = await eventually("member1 registered again and Ready", cluster, (x) => condition(x, "Ready")?.status === "True", 60_000);
    assert.notEqual(c.metadata.uid, s.oldClusterUid, "a new Cluster");
    const now = await storedCertificate();
    assert.match(now?.subject ?? "", new RegExp(`OU=${c.metadata.uid}`), "the member's new certificate is bound to the new Cluster");
    if (stored) assert.ok(Date.parse(stored.validTo) < Date.now(), "the one it had expired");
  });
  after(async () => {
    await s.flotilla?.stop();
    await s.fleet?.stop();
  });
  return { s, ctl, member };
}

/**
 * The objects are the ones from before (same uids) and say what the templates say now; the dropped
 * template's object went for that reason only; the one placed by a Cluster label the new
 * registration lacks stays until an admin sets the label again.
 */
async function adoptedInPlace(s: ReturnType<typeof rejoining>["s"], member: ReturnType<typeof rejoining>["member"], ctl: ReturnType<typeof rejoining>["ctl"]): Promise<void> {
  await eventually("changed updated in place", () => member("configmap", "changed"), (o) => o.data?.a === "2", 60_000);
  await eventually("recreated updated in place", () => member("configmap", "recreated"), (o) => o.data?.a === "again", 60_000);
  await eventually("web scaled in place", () => member("deployment", "web"), (o) => o.spec?.replicas === 2, 60_000);
  await eventually("dropped removed (its template was deleted)", () => member("configmap", "dropped").then((o) => (o === undefined ? "gone" : undefined)), () => true, 60_000);
  await sleep(SETTLE_MS);
  for (const [kind, name] of [["configmap", "same"], ["configmap", "changed"], ["configmap", "recreated"], ["deployment", "web"]] as const) {
    const o = await member(kind, name);
    assert.equal(o?.metadata.uid, s.uids[name], `${name} is the same object: never deleted and made again`);
    assert.ok(o?.metadata.labels?.[WORK], `${name} is Flotilla's`);
  }
  assert.equal((await member("configmap", "same"))?.data?.a, "1");
  // The new Cluster lacks the admin's label, so no placement gives it `labelled`; that is no
  // intent about the object (issue 37 item 7): it stays as it was, until the label is back.
  const kept = await member("configmap", "labelled");
  assert.equal(kept?.metadata.uid, s.uids.labelled, "labelled stays while the new Cluster lacks the label that placed it");
  assert.equal(kept?.data?.a, "1", "…as it was: nothing placed it on the new registration");
  // The removal its placement would make is held where a person looks, with the way out.
  const listed = await eventually(
    "flotillactl lists labelled's removal as held",
    async () => {
      const r = await ctl(["deletions", "list", "--cluster", "member1", "-o", "json"]);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout) as { name: string; message?: string }[];
    },
    (held) => held.some((h) => h.name === "labelled"),
    30_000,
  );
  assert.deepEqual(listed.map((h) => h.name), ["labelled"], "only the Work its new registration was never given");
  await kubectl(s.fleet.control, ["label", "cluster", "member1", "env=prod"]);
  const adopted = await eventually("labelled updated in place once the label is back", () => member("configmap", "labelled"), (o) => o.data?.a === "2", 60_000);
  assert.equal(adopted.metadata.uid, s.uids.labelled, "labelled is the same object");
  assert.deepEqual(deletions(await s.flotilla.agentMetrics("member1")), { 'flotilla_agent_deletes_total{reason="TemplateDeleted"}': 1 }, "the one deletion is the deleted template's");
}

describe("a member that joins again keeps its objects (its certificate expired)", () => {
  const { s, ctl, member } = rejoining({ requireAcceptance: false, expired: true });

  it("after its certificate expired, a forced unjoin and a new registration, Flotilla's objects are adopted in place and updated to the templates of now", async () => {
    await adoptedInPlace(s, member, ctl);
  });
});

describe("a member that joins again keeps its objects (--require-acceptance)", () => {
  const { s, ctl, member } = rejoining({ requireAcceptance: true, expired: false });

  it("until accepted nothing is applied or deleted; once accepted, its objects are adopted in place", async () => {
    await eventually("member1 awaits acceptance", () => getJson<ClusterJson>(s.fleet.control, ["cluster", "member1"]), (c) => condition(c, "Accepted")?.status === "False");
    // Long enough for any removal the hub would judge for the Ready cluster to be sent and acted on.
    await sleep(SETTLE_MS);
    for (const [kind, name] of [["configmap", "same"], ["configmap", "changed"], ["configmap", "recreated"], ["configmap", "dropped"], ["deployment", "web"]] as const) {
      assert.equal((await member(kind, name))?.metadata.uid, s.uids[name], `${name} is held, not deleted, while member1 awaits acceptance`);
    }
    assert.equal((await member("configmap", "changed"))?.data?.a, "1", "nothing new applied before acceptance");
    assert.equal((await member("deployment", "web"))?.spec?.replicas, 1, "nothing new applied before acceptance");
    assert.deepEqual(deletions(await s.flotilla.agentMetrics("member1")), {}, "the agent deleted nothing before acceptance");

    const r = await ctl(["accept", "member1"]);
    assert.equal(r.code, 0, r.stderr);
    await adoptedInPlace(s, member, ctl);
  });
});
