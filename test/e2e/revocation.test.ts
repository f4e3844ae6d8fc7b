// Revocation (DESIGN §7): a certificate from `flotilla certs agent` is bound to its Cluster's uid,
// so deleting and re-creating the Cluster revokes it, like a registered agent's; a certificate
// bound to no uid is refused with how to re-issue it; admin certificates are short-lived. Real
// control plane, agent and clusters; gRPC over mutual TLS on 127.0.0.1.
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { status as GrpcStatus } from "@grpc/grpc-js";
import { issueAgentCertificate } from "../../shared/pki.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { helloOutcome } from "./hostile-agent.ts";
import { apply, type CommandResult, eventually, getJson, runCommand } from "./helpers.ts";
import { ensureTestBundles } from "../env/test-bundles.ts";

const FLOTILLA = (await ensureTestBundles()).flotilla;
const CTL = (await ensureTestBundles()).flotillactl;

interface ClusterJson {
  metadata: { uid: string };
  status?: { conditions?: { type: string; status: string }[] };
}

describe("revocation of agent and admin certificates", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let out: string;
  const flotillaCli = (args: string[]): Promise<CommandResult> => runCommand(process.execPath, [FLOTILLA, ...args], { env: { ...process.env, KUBECONFIG: "" } });
  const ctl = (args: string[]): Promise<CommandResult> => runCommand(process.execPath, [CTL, ...args], { env: { ...process.env, FLOTILLA_STATE_DIR: fleet.root } });
  const ready = (c: ClusterJson) => c.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True") === true;
  const gone = async () => ((await getJson(fleet.control, ["cluster", "member1"])) === undefined ? "gone" : undefined);

  /** Opens an agent stream with these credentials; resolves with the gRPC status it ends with. */
  const connectWith = (cert: string, key: string) => helloOutcome({ hubPort: flotilla.hubPort, certsDir: flotilla.certsDir, cert: Buffer.from(cert), key: Buffer.from(key), cluster: "member1" });
  const files = async (dir: string, name: string) => ({ cert: await readFile(join(dir, `${name}.crt`), "utf8"), key: await readFile(join(dir, `${name}.key`), "utf8") });

  before(async () => {
    fleet = await startFleet({ members: 1 });
    flotilla = await startFlotilla(fleet);
    out = join(fleet.root, "issued");
    await mkdir(out);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("flotilla certs agent binds the certificate to the Cluster's uid, and refuses to sign without one", async () => {
    const none = await flotillaCli(["certs", "agent", "--dir", flotilla.certsDir, "--cluster", "member1", "--out", out]);
    assert.equal(none.code, 2, none.stderr);
    assert.match(none.stderr, /bound to its Cluster's uid.*pass --kubeconfig of the control cluster .*or --cluster-uid/);
    const missing = await flotillaCli(["certs", "agent", "--dir", flotilla.certsDir, "--cluster", "member9", "--kubeconfig", fleet.control.kubeconfigPath, "--out", out]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no Cluster member9 in the control cluster: create it first/);

    const uid = (await getJson<ClusterJson>(fleet.control, ["cluster", "member1"]))?.metadata.uid ?? "";
    const issued = await flotillaCli(["certs", "agent", "--dir", flotilla.certsDir, "--cluster", "member1", "--kubeconfig", fleet.control.kubeconfigPath, "--out", out]);
    assert.equal(issued.code, 0, issued.stderr);
    assert.match(issued.stdout, new RegExp(`bound to Cluster member1 uid ${uid}`));
    assert.match(new X509Certificate((await files(out, "member1")).cert).subject, new RegExp(`OU=${uid}`));
    const given = await flotillaCli(["certs", "agent", "--dir", flotilla.certsDir, "--cluster", "member1", "--cluster-uid", uid, "--out", join(out, "given")]);
    assert.equal(given.code, 0, given.stderr);
    assert.match(new X509Certificate((await files(join(out, "given"), "member1")).cert).subject, new RegExp(`OU=${uid}`));
  });

  it("a certificate for a deleted and re-created Cluster is refused; one issued afresh connects", async () => {
    const old = await files(flotilla.certsDir, "member1");
    assert.match(new X509Certificate(old.cert).subject, /OU=/, "the agent runs with a certificate bound to its Cluster");
    await eventually("member1 Ready", () => getJson<ClusterJson>(fleet.control, ["cluster", "member1"]), ready, 30_000);
    const r = await ctl(["unjoin", "member1"]);
    assert.equal(r.code, 0, r.stderr);
    await eventually("Cluster member1 gone", gone, () => true, 30_000);
    await flotilla.stopAgent("member1");
    await apply(fleet.control, JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name: "member1" }, spec: {} }));

    for (const [what, pair] of [["the test fleet's certificate", old], ["the one flotilla certs agent signed before", await files(out, "member1")]] as const) {
      const refused = await connectWith(pair.cert, pair.key);
      assert.equal(refused.code, GrpcStatus.PERMISSION_DENIED, `${what}: ${refused.details}`);
      assert.match(refused.details, /earlier registration of cluster member1 .*revoked; .*flotilla certs agent --cluster member1 --kubeconfig/, what);
    }
    // A certificate bound to no Cluster at all (an older `flotilla certs agent`) cannot be revoked: refused, saying how to re-issue.
    const ca = { certPem: await readFile(join(flotilla.certsDir, "ca.crt"), "utf8"), keyPem: await readFile(join(flotilla.certsDir, "ca.key"), "utf8") };
    const legacy = await issueAgentCertificate(ca, "member1");
    const refused = await connectWith(legacy.certPem, legacy.keyPem);
    assert.equal(refused.code, GrpcStatus.PERMISSION_DENIED, refused.details);
    assert.match(refused.details, /bound to no Cluster uid .*refused; .*flotilla certs agent --cluster member1 --kubeconfig/);

    const fresh = await flotillaCli(["certs", "agent", "--dir", flotilla.certsDir, "--cluster", "member1", "--kubeconfig", fleet.control.kubeconfigPath]);
    assert.equal(fresh.code, 0, fresh.stderr);
    await flotilla.startAgent("member1");
    await eventually("member1 Ready with the fresh certificate", () => getJson<ClusterJson>(fleet.control, ["cluster", "member1"]), ready, 30_000);
  });

  it("admin certificates are short-lived: 24h by default, and an expired one is refused", async () => {
    const day = await flotillaCli(["certs", "admin", "--dir", flotilla.certsDir, "--user", "alice", "--out", join(out, "day")]);
    assert.equal(day.code, 0, day.stderr);
    const left = new Date(new X509Certificate(await readFile(join(out, "day", "admin.crt"))).validTo).getTime() - Date.now();
    assert.ok(left > 23 * 3_600_000 && left <= 24 * 3_600_000, `valid for 24h, got ${left} ms`);
    assert.match(day.stdout, /valid until \d{4}-/);
    const works = await ctl(["get", "clusters", "--cert", join(out, "day", "admin.crt"), "--key", join(out, "day", "admin.key")]);
    assert.equal(works.code, 0, works.stderr);

    const brief = await flotillaCli(["certs", "admin", "--dir", flotilla.certsDir, "--user", "bob", "--validity", "1s", "--out", join(out, "brief")]);
    assert.equal(brief.code, 0, brief.stderr);
    await new Promise((r) => setTimeout(r, 2500));
    const expired = await ctl(["get", "clusters", "--cert", join(out, "brief", "admin.crt"), "--key", join(out, "brief", "admin.key")]);
    assert.equal(expired.code, 1, `an expired admin certificate is refused: ${expired.stdout}`);
  });
});
