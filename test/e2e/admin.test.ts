// flotillactl against a real control plane: the Admin API over mTLS, found through the fleet's
// state directory without flags, and every refusal with its exit code and message. Its diff and
// plan commands: admin-diff.test.ts.
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { adminFleet, deployment, NS, override, policy } from "./admin.fixtures.ts";
import { apply, eventually, runCommand } from "./helpers.ts";

describe("flotillactl and the Admin API", () => {
  const a = adminFleet();

  it("renders exactly the Work a cluster receives, override included, without any connection flag", async () => {
    const image = (o: { spec: { template: { spec: { containers: { image: string }[] } } } }) => o.spec.template.spec.containers[0]?.image;
    const r2 = await a.ctl(["render", "deployment/web", "-n", NS, "--cluster", "member2", "-o", "json"]);
    assert.equal(r2.code, 0, r2.stderr);
    assert.equal(image(JSON.parse(r2.stdout)), "nginx:1.26");
    const hash = /content hash (\S+)\)/.exec(r2.stderr)?.[1];
    assert.match(r2.stderr, /member2 receives exactly this for Deployment adm\/web/);
    assert.doesNotMatch(r2.stderr, /Warning/, "no Node warning (an IP address as the TLS server name is one)");
    const works = await a.json<{ workKey: string; contentHash: string; applied: boolean }[]>(["get", "works", "--cluster", "member2"]);
    const work = works.find((w) => w.workKey === `apps/v1/Deployment/${NS}/web`);
    assert.equal(work?.contentHash, hash, "the hash the hub sends is the one rendered");

    const r1 = await a.ctl(["render", "deploy/web", "--namespace", NS, "--cluster", "member1"]);
    assert.equal(r1.code, 0, r1.stderr);
    assert.match(r1.stdout, /image: nginx:1\.25/, "YAML by default; member1 has no override");
  });

  it("runs as `npx flotillactl` in the repository, on whatever node npx uses", async () => {
    const repo = fileURLToPath(new URL("../..", import.meta.url));
    const out = await runCommand("npx", ["--no-install", "flotillactl", "get", "clusters", "-o", "json"], { cwd: repo, env: { ...process.env, FLOTILLA_STATE_DIR: a.fleet.root } });
    assert.equal(out.code, 0, out.stderr);
    assert.deepEqual((JSON.parse(out.stdout) as { name: string }[]).map((c) => c.name), ["member1", "member2"]);
  });

  it("lists clusters and describes a template's propagation", async () => {
    const clusters = await a.json<{ name: string; ready: boolean; connected: boolean; kubernetesVersion: string }[]>(["get", "clusters"]);
    assert.deepEqual(clusters.map((c) => [c.name, c.ready, c.connected]), [["member1", true, true], ["member2", true, true]]);
    assert.match(clusters[0]?.kubernetesVersion ?? "", /^v1\.\d+/);
    const t = await a.ctl(["get", "clusters"]);
    assert.match(t.stdout, /^NAME\s+READY\s+CONNECTED\s+VERSION\s+NODES/);
    const rows = await eventually("both applied", () => a.json<{ cluster: string; replicas: number; applied: boolean }[]>(["describe", "deployment/web", "-n", NS]), (x) => x.every((c) => c.applied));
    assert.deepEqual(rows.map((c) => [c.cluster, c.replicas]), [["member1", 2], ["member2", 2]]);
  });

  it("serves Prometheus metrics on both sides: agents, Works, queues, reconcile latency, apply errors, stream bytes", async () => {
    const cp = await a.flotilla.controlPlaneMetrics();
    assert.equal(cp.flotilla_connected_agents, 2);
    assert.ok((cp['flotilla_works{cluster="member2"}'] ?? 0) >= 1, "Works per cluster");
    assert.ok((cp['flotilla_reconcile_duration_seconds_count{name="binding"}'] ?? 0) > 0, "reconcile latency of the binding controller");
    assert.ok('flotilla_workqueue_depth{name="status"}' in cp, "queue depth per controller");
    assert.ok((cp['flotilla_stream_bytes_sent_total{cluster="member2"}'] ?? 0) > 0, "bytes sent on member2's stream");
    const agent = await a.flotilla.agentMetrics("member2");
    assert.equal(agent.flotilla_agent_connected, 1);
    assert.ok("flotilla_agent_apply_errors_total" in agent);
    assert.ok((agent['flotilla_reconcile_duration_seconds_count{name="work"}'] ?? 0) > 0, "the agent's apply loop is timed");
  });

  it("says why a render fails, with exit code 1 for a failed call and 2 for bad usage", async () => {
    await apply(a.fleet.control, deployment("broken"));
    await apply(a.fleet.control, policy("broken", ["member1", "member2"]));
    await apply(a.fleet.control, override("broken-path", "broken", { plaintext: [{ path: "/spec/nothing/here", operator: "remove" }] }));
    const cases: { args: string[]; env?: Record<string, string>; code: number; message: RegExp }[] = [
      { args: ["render", "deployment/web", "-n", NS, "--cluster", "nope"], code: 1, message: /NOT_FOUND: cluster "nope" is not registered/ },
      { args: ["render", "gadget/web", "--cluster", "member1"], code: 1, message: /INVALID_ARGUMENT: the control cluster serves no resource named "gadget"/ },
      { args: ["render", "deployment/missing", "-n", NS, "--cluster", "member1"], code: 1, message: /NOT_FOUND: Deployment adm\/missing not found/ },
      { args: ["render", "deployment/broken", "-n", NS, "--cluster", "member2"], code: 1, message: /FAILED_PRECONDITION: ApplyOverridesFailed: .*\/spec\/nothing\/here/ },
      { args: ["render", "deployment/web", "-n", NS], code: 2, message: /--cluster is required/ },
      { args: ["render", "web", "--cluster", "member1"], code: 2, message: /expected <kind>\/<name>/ },
      { args: ["get", "clusters", "-o", "wide"], code: 2, message: /-o "wide": choose one of table, json, yaml/ },
      { args: ["frobnicate"], code: 2, message: /unknown command "frobnicate"/ },
      { args: ["get", "clusters", "--cert", join(a.flotilla.certsDir, "member1.crt"), "--key", join(a.flotilla.certsDir, "member1.key")], code: 1, message: /PERMISSION_DENIED: the Admin API needs an admin client certificate/ },
      // The server name is checked: the control plane's certificate names localhost, not this.
      { args: ["get", "clusters", "--server-name", "elsewhere.example"], code: 1, message: /UNAVAILABLE: .*elsewhere\.example/ },
      { args: ["get", "clusters"], env: { FLOTILLA_STATE_DIR: "" }, code: 1, message: /cannot read the control plane's address in \.flotilla\/flotilla-certs\/admin-endpoint/ },
      { args: ["get", "clusters", "--state-dir", a.empty], code: 1, message: /cannot read .*admin-endpoint: start the local fleet with `npm run up`/ },
    ];
    for (const c of cases) {
      const r = await a.ctl(c.args, c.env);
      assert.equal(r.code, c.code, `${c.args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, c.message, c.args.join(" "));
      assert.equal(r.stdout, "", "nothing on stdout when it fails");
    }
  });
});
