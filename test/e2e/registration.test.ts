// Registration of a member with a bootstrap token, certificate renewal, unjoin (waiting and
// forced), and the hub refusing revoked and expired certificates: real control plane, agents and
// clusters, gRPC over mutual TLS on 127.0.0.1.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { credentials, Metadata, status as GrpcStatus } from "@grpc/grpc-js";
import { RegistrationClient } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { createCsr, signAgentCsr } from "../../shared/pki.ts";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { waitFor } from "../env/wait.ts";
import { helloOutcome } from "./hostile-agent.ts";
import { apply, type CommandResult, eventually, getJson, kubectl, runCommand } from "./helpers.ts";
import { ensureTestBundles } from "../env/test-bundles.ts";

const CTL = (await ensureTestBundles()).flotillactl;
const NS = "reg";

interface SecretJson {
  data?: Record<string, string>;
}
interface ClusterJson {
  metadata: { uid: string; finalizers?: string[] };
  spec?: { region?: string };
  status?: { conditions?: { type: string; status: string }[] };
}

/** Verify the servers by the name in their certificates (TLS server names cannot be IP addresses). */
const BY_NAME = { "grpc.ssl_target_name_override": "localhost" };

describe("registration, renewal and unjoin", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let m2: Cluster;
  let token = "";
  const ctl = (args: string[]): Promise<CommandResult> => runCommand(process.execPath, [CTL, ...args], { env: { ...process.env, FLOTILLA_STATE_DIR: fleet.root } });
  const ready = (c: ClusterJson | undefined) => c?.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True") === true;
  const storedCert = async () => {
    const s = await getJson<SecretJson>(m2, ["secret", "-n", "flotilla-system", "flotilla-agent-credentials"]);
    return s?.data?.["tls.crt"] ? { cert: Buffer.from(s.data["tls.crt"], "base64"), key: Buffer.from(s.data["tls.key"] ?? "", "base64") } : undefined;
  };
  /** Opens an agent stream with these credentials; resolves with the gRPC status it ends with. */
  const connectWith = (cert: Buffer, key: Buffer) => helloOutcome({ hubPort: flotilla.hubPort, certsDir: flotilla.certsDir, cert, key, cluster: "member2" });
  /** Calls Register over TLS as an agent does; with csrPem, for a key the caller already has. */
  const register = async (clusterName: string, bootstrapToken: string, csrPem?: string): Promise<{ code: number; details: string; certificate?: string }> => {
    const ca = await readFile(join(flotilla.certsDir, "ca.crt"));
    const client = new RegistrationClient(`127.0.0.1:${flotilla.registrationPort}`, credentials.createSsl(ca), BY_NAME);
    const csr = csrPem ?? (await createCsr(clusterName)).csrPem;
    try {
      return await new Promise((resolve) =>
        client.register({ clusterName, bootstrapToken, csr, region: "", zone: "", provider: "" }, new Metadata(), { deadline: Date.now() + 10_000 }, (err, res) =>
          resolve(err ? { code: err.code, details: err.details } : { code: GrpcStatus.OK, details: "", certificate: res?.certificate }),
        ),
      );
    } finally {
      client.close();
    }
  };

  before(async () => {
    fleet = await startFleet({ members: 2 });
    // Certificates signed at registration last 30 s, so the agent renews within the test.
    flotilla = await startFlotilla(fleet, { unregistered: ["member2"], agentCertValidity: "30s" });
    m2 = fleet.members[1] as Cluster;
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("creates, lists and deletes bootstrap tokens with flotillactl", async () => {
    const created = await ctl(["token", "create", "--ttl", "1h", "--description", "e2e member2"]);
    assert.equal(created.code, 0, created.stderr);
    token = created.stdout.trim();
    assert.match(token, /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
    const spare = (await ctl(["token", "create", "-o", "json"])).stdout;
    const spareId = (JSON.parse(spare) as { id: string }).id;
    const list = JSON.parse((await ctl(["token", "list", "-o", "json"])).stdout) as { id: string; description: string; expired: boolean }[];
    const mine = list.find((t) => t.id === token.slice(0, 6));
    assert.equal(mine?.description, "e2e member2");
    assert.equal(mine?.expired, false);
    assert.ok(list.some((t) => t.id === spareId));
    assert.ok(!JSON.stringify(list).includes(token.slice(7)), "the list never shows a secret");
    assert.equal((await ctl(["token", "delete", spareId])).code, 0);
    const again = await ctl(["token", "delete", spareId]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /NOT_FOUND: no bootstrap token/);
  });

  it("refuses registration with a bad or expired token, a taken name or an invalid name", async () => {
    const short = JSON.parse((await ctl(["token", "create", "--ttl", "1s", "-o", "json"])).stdout) as { token: string };
    await new Promise((r) => setTimeout(r, 1500));
    const cases: { name: string; cluster: string; token: string; code: number; details: RegExp }[] = [
      { name: "unknown token", cluster: "member9", token: "abcdef.0123456789abcdef", code: GrpcStatus.UNAUTHENTICATED, details: /bootstrap token is not valid/ },
      { name: "malformed token", cluster: "member9", token: "nope", code: GrpcStatus.UNAUTHENTICATED, details: /reads <6 characters>\.<16 characters>/ },
      { name: "expired token", cluster: "member9", token: short.token, code: GrpcStatus.UNAUTHENTICATED, details: /expired at/ },
      { name: "a name already registered", cluster: "member1", token, code: GrpcStatus.ALREADY_EXISTS, details: /cluster member1 is already registered/ },
      { name: "an invalid name", cluster: "Member_9", token, code: GrpcStatus.INVALID_ARGUMENT, details: /not valid: a DNS label/ },
    ];
    for (const c of cases) {
      const r = await register(c.cluster, c.token);
      assert.equal(r.code, c.code, `${c.name}: ${r.details}`);
      assert.match(r.details, c.details, c.name);
    }
    assert.equal(await getJson(fleet.control, ["cluster", "member9"]), undefined, "no Cluster was created by a refused registration");
  });

  it("a token with --uses 1 registers one cluster and refuses the next (its retry still signs); racing registrations spend exactly the uses; --ttl over 7 days is refused", async () => {
    const long = await ctl(["token", "create", "--ttl", "192h"]);
    assert.equal(long.code, 1, "refused (exit 1)");
    assert.match(long.stderr, /INVALID_ARGUMENT: a bootstrap token is good for at most 168h \(7 days\); 192h was asked for/);
    assert.equal(long.stdout, "", "no token printed");
    const created = async (uses: number) => JSON.parse((await ctl(["token", "create", "--uses", String(uses), "-o", "json"])).stdout) as { token: string; id: string };
    const usesOf = async (id: string) => (JSON.parse((await ctl(["token", "list", "-o", "json"])).stdout) as { id: string; usesAllowed: number; uses: number }[]).find((t) => t.id === id);

    const once = await created(1);
    const { csrPem } = await createCsr("member7");
    assert.equal((await register("member7", once.token, csrPem)).code, GrpcStatus.OK);
    const second = await register("member8", once.token);
    assert.equal(second.code, GrpcStatus.UNAUTHENTICATED, second.details);
    assert.match(second.details, /the bootstrap token has no uses left \(it was good for 1 registration, all made\)/);
    assert.equal(await getJson(fleet.control, ["cluster", "member8"]), undefined, "no Cluster for the refused registration");
    assert.equal((await register("member7", once.token, csrPem)).code, GrpcStatus.OK, "the lost-answer retry of the one registration is not a second use");
    const info = await usesOf(once.id);
    assert.deepEqual([info?.usesAllowed, info?.uses], [1, 1]);
    assert.match((await ctl(["token", "list"])).stdout, new RegExp(`${once.id} .* 1/1 `));

    const twice = await created(2);
    const racers = ["race1", "race2", "race3", "race4", "race5", "race6"];
    const results = await Promise.all(racers.map((n) => register(n, twice.token)));
    const won = racers.filter((_, i) => results[i]?.code === GrpcStatus.OK);
    assert.equal(won.length, 2, JSON.stringify(results.map((r) => r.details)));
    for (const r of results.filter((x) => x.code !== GrpcStatus.OK)) assert.match(r.details, /no uses left/);
    assert.equal((await usesOf(twice.id))?.uses, 2);
    for (const n of racers) assert.equal((await getJson(fleet.control, ["cluster", n])) !== undefined, won.includes(n), n);

    for (const n of ["member7", ...won]) assert.equal((await ctl(["unjoin", n, "--force"])).code, 0);
    for (const n of ["member7", ...won]) await eventually(`${n} gone`, () => getJson(fleet.control, ["cluster", n]).then((x) => (x === undefined ? "gone" : undefined)), () => true, 15_000);
  });

  it("a retried registration (same token, same key: its first answer was lost) gets its certificate for the same Cluster; another key with the token is refused", async () => {
    const { csrPem } = await createCsr("member9");
    const first = await register("member9", token, csrPem);
    assert.equal(first.code, GrpcStatus.OK, first.details);
    // The answer never reached the agent: it asks again, with the same token and CSR.
    const retried = await register("member9", token, csrPem);
    assert.equal(retried.code, GrpcStatus.OK, retried.details);
    const uid = (await getJson<ClusterJson>(fleet.control, ["cluster", "member9"]))?.metadata.uid ?? "";
    const { X509Certificate } = await import("node:crypto");
    for (const r of [first, retried]) {
      const subject = new X509Certificate(r.certificate ?? "").subject;
      assert.match(subject, /CN=member9/);
      assert.match(subject, new RegExp(`OU=${uid}`), "bound to the one Cluster both calls share");
    }
    const stolen = await register("member9", token);
    assert.equal(stolen.code, GrpcStatus.ALREADY_EXISTS, "the same token with another key is not the same registration");
    assert.match(stolen.details, /cluster member9 is already registered/);
    assert.equal((await getJson<ClusterJson>(fleet.control, ["cluster", "member9"]))?.metadata.uid, uid, "still the first Cluster");
    const gone = await ctl(["unjoin", "member9", "--force"]);
    assert.equal(gone.code, 0, gone.stderr);
    await eventually("member9 gone", () => getJson(fleet.control, ["cluster", "member9"]).then((x) => (x === undefined ? "gone" : undefined)), () => true, 15_000);
  });

  it("an agent started with a bad token stops and says why", async () => {
    await flotilla.startAgent("member2", { bootstrapToken: "abcdef.0123456789abcdef", waitHealthy: false });
    const agent = flotilla.agents.get("member2");
    const exit = await agent?.process.exited;
    assert.equal(exit?.code, 1);
    const log = await readFile(join(flotilla.logsDir, "agent-member2.log"), "utf8");
    assert.match(log, /registration refused: the bootstrap token is not valid/);
    assert.ok(!log.includes("0123456789abcdef"), "the token is never logged");
    await flotilla.stopAgent("member2");
  });

  it("registers a member with a token: its Cluster appears Ready, its key stays in the member, and Works flow", async () => {
    await flotilla.startAgent("member2", { bootstrapToken: token });
    const c = await eventually("member2 Ready", () => getJson<ClusterJson>(fleet.control, ["cluster", "member2"]), ready, 30_000);
    assert.deepEqual(c.metadata.finalizers, ["flotilla.dev/cluster-cleanup"]);
    const stored = await storedCert();
    assert.ok(stored, "the credentials Secret holds the key and certificate");
    const subject = new (await import("node:crypto")).X509Certificate(stored.cert).subject;
    assert.match(subject, /CN=member2/);
    assert.match(subject, new RegExp(`OU=${c.metadata.uid}`), "bound to this registration");
    assert.ok(!(await readFile(join(flotilla.logsDir, "agent-member2.log"), "utf8")).includes(token.slice(7)), "the token is never logged");

    await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "hello", namespace: NS }, data: { a: "1" } }));
    await apply(
      fleet.control,
      JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "hello", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "hello" }] } }),
    );
    await eventually("hello in member2", () => getJson(m2, ["configmap", "-n", NS, "hello"]), () => true);
  });

  it("renews the certificate before it expires, and the renewed one connects after a restart", async () => {
    const first = await storedCert();
    const renewed = await eventually("a renewed certificate in the Secret", storedCert, (s) => !s.cert.equals(first?.cert ?? Buffer.alloc(0)), 40_000);
    await flotilla.stopAgent("member2");
    await flotilla.startAgent("member2", { fromSecret: true });
    await waitFor(async () => (await flotilla.agentMetrics("member2")).flotilla_agent_connected === 1, { what: "member2 synced with the renewed certificate", timeoutMs: 20_000 });
    assert.ok(renewed.cert.length > 0);
  });

  it("refuses an expired certificate at the hub", async () => {
    const ca = { certPem: await readFile(join(flotilla.certsDir, "ca.crt"), "utf8"), keyPem: await readFile(join(flotilla.certsDir, "ca.key"), "utf8") };
    const uid = (await getJson<ClusterJson>(fleet.control, ["cluster", "member2"]))?.metadata.uid ?? "";
    const { csrPem, keyPem } = await createCsr("member2");
    const expired = await signAgentCsr(ca, csrPem, { cluster: "member2", clusterUid: uid, validityMs: -60_000 });
    const r = await connectWith(Buffer.from(expired), Buffer.from(keyPem));
    assert.equal(r.code, GrpcStatus.UNAVAILABLE, `refused at the TLS handshake: ${r.details}`);
  });

  it("unjoins: the agent removes what Flotilla applied (suspended or not), then the Cluster goes; its certificate is refused for good", async () => {
    // A template whose dispatching to member2 is suspended: the unjoin removes it all the same.
    await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "held", namespace: NS }, data: { a: "1" } }));
    const held = (suspension?: object) =>
      JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "held", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "held" }], ...(suspension ? { suspension } : {}) } });
    await apply(fleet.control, held());
    await eventually("held in member2", () => getJson(m2, ["configmap", "-n", NS, "held"]), () => true);
    await apply(fleet.control, held({ dispatchingOnClusters: { clusterNames: ["member2"] } }));
    await eventually("the binding suspends member2", () => getJson<{ spec: { suspension?: object } }>(fleet.control, ["rb", "-n", NS, "held-configmap"]), (b) => b.spec.suspension !== undefined);

    const old = await storedCert();
    const r = await ctl(["unjoin", "member2"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /member2 unjoining/);
    await eventually("hello removed from member2", () => getJson(m2, ["configmap", "-n", NS, "hello"]).then((x) => (x === undefined ? "gone" : undefined)), () => true);
    await eventually("held removed from member2", () => getJson(m2, ["configmap", "-n", NS, "held"]).then((x) => (x === undefined ? "gone" : undefined)), () => true);
    await eventually("Cluster gone", () => getJson(fleet.control, ["cluster", "member2"]).then((x) => (x === undefined ? "gone" : undefined)), () => true, 30_000);
    await flotilla.stopAgent("member2");

    // Registered again under the same name: the old certificate belongs to the old registration.
    assert.equal((await register("member2", token)).code, GrpcStatus.OK);
    const refused = await connectWith(old?.cert ?? Buffer.alloc(0), old?.key ?? Buffer.alloc(0));
    assert.equal(refused.code, GrpcStatus.PERMISSION_DENIED);
    assert.match(refused.details, /earlier registration of cluster member2/);
  });

  it("force-unjoins a cluster whose agent is gone, releasing bindings that wait on it", async () => {
    // member2 is registered (above) but no agent runs: a deleted template would wait on it.
    await eventually("binding targets member2", () => getJson<{ spec: { clusters: { name: string }[] } }>(fleet.control, ["rb", "-n", NS, "hello-configmap"]), (b) => b.spec.clusters.some((c) => c.name === "member2"));
    const r = await ctl(["unjoin", "member2", "--force"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /member2 removed; bindings waiting on it are released/);
    await eventually("Cluster gone at once", () => getJson(fleet.control, ["cluster", "member2"]).then((x) => (x === undefined ? "gone" : undefined)), () => true, 15_000);
    await kubectl(fleet.control, ["delete", "configmap", "-n", NS, "hello"]);
    await eventually("the binding is released", () => getJson(fleet.control, ["rb", "-n", NS, "hello-configmap"]).then((x) => (x === undefined ? "gone" : undefined)), () => true, 30_000);
    const missing = await ctl(["unjoin", "member2"]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /NOT_FOUND: cluster "member2" is not registered/);
  });
});
