// flotillactl against a real control plane: the Admin API over mTLS, found through the fleet's
// state directory without flags, and every refusal with its exit code and message.
import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { stringify } from "yaml";
import { type AddressInfo, connect as connectTcp, createServer, type Socket } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type CommandResult, deploymentJson, eventually, getJson, kubectl, placementPolicyJson, runCommand } from "./helpers.ts";
import { ownHub } from "./own-hub.ts";
import { keyedRedaction, secretDigestKey } from "../../control-plane/admin/secret-digest.ts";

const NS = "adm";
const CTL = fileURLToPath(new URL("../../bin/flotillactl.ts", import.meta.url));

const deployment = (name: string) => deploymentJson(name, NS, 2, "nginx:1.25");
const policy = (name: string, clusters: string[]) => placementPolicyJson(name, NS, clusters);
const override = (name: string, target: string, overriders: object) =>
  JSON.stringify({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "OverridePolicy",
    metadata: { name, namespace: NS },
    spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: target }], overrideRules: [{ targetCluster: { clusterNames: ["member2"] }, overriders }] },
  });

describe("flotillactl and the Admin API", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let empty: string;
  const ctl = (args: string[], env: Record<string, string> = {}): Promise<CommandResult> =>
    runCommand(process.execPath, [CTL, ...args], { cwd: empty, env: { ...process.env, FLOTILLA_STATE_DIR: fleet.root, ...env } });
  const json = async <T>(args: string[]): Promise<T> => {
    const r = await ctl([...args, "-o", "json"]);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as T;
  };

  before(async () => {
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet);
    // A working directory with no .flotilla in it, inside the fleet's root so the fleet's teardown removes it.
    empty = join(fleet.root, "empty-cwd");
    await mkdir(empty);
    await kubectl(fleet.control, ["create", "namespace", NS]);
    await apply(fleet.control, deployment("web"));
    await apply(fleet.control, policy("web", ["member1", "member2"]));
    await apply(fleet.control, override("web-tag", "web", { imageOverrider: [{ component: "Tag", operator: "replace", value: "1.26" }] }));
    const m2 = fleet.members[1] as Cluster;
    await eventually("member2 runs the overridden image", () => getJson<{ spec: { template: { spec: { containers: { image: string }[] } } } }>(m2, ["deploy", "-n", NS, "web"]), (d) => d.spec.template.spec.containers[0]?.image === "nginx:1.26");
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("renders exactly the Work a cluster receives, override included, without any connection flag", async () => {
    const image = (o: { spec: { template: { spec: { containers: { image: string }[] } } } }) => o.spec.template.spec.containers[0]?.image;
    const r2 = await ctl(["render", "deployment/web", "-n", NS, "--cluster", "member2", "-o", "json"]);
    assert.equal(r2.code, 0, r2.stderr);
    assert.equal(image(JSON.parse(r2.stdout)), "nginx:1.26");
    const hash = /content hash (\S+)\)/.exec(r2.stderr)?.[1];
    assert.match(r2.stderr, /member2 receives exactly this for Deployment adm\/web/);
    assert.doesNotMatch(r2.stderr, /Warning/, "no Node warning (an IP address as the TLS server name is one)");
    const works = await json<{ workKey: string; contentHash: string; applied: boolean }[]>(["get", "works", "--cluster", "member2"]);
    const work = works.find((w) => w.workKey === `apps/v1/Deployment/${NS}/web`);
    assert.equal(work?.contentHash, hash, "the hash the hub sends is the one rendered");

    const r1 = await ctl(["render", "deploy/web", "--namespace", NS, "--cluster", "member1"]);
    assert.equal(r1.code, 0, r1.stderr);
    assert.match(r1.stdout, /image: nginx:1\.25/, "YAML by default; member1 has no override");
  });

  it("previews a template for a cluster it does not go to", async () => {
    await apply(fleet.control, deployment("solo"));
    await apply(fleet.control, policy("solo", ["member1"]));
    await apply(fleet.control, override("solo-tag", "solo", { imageOverrider: [{ component: "Tag", operator: "replace", value: "preview" }] }));
    const r = await ctl(["render", "deployments.apps/solo", "-n", NS, "--cluster", "member2", "-o", "json"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /preview: member2 is not a target/);
    assert.equal(JSON.parse(r.stdout).spec.template.spec.containers[0].image, "nginx:preview");
  });

  it("runs as `npx flotillactl` in the repository, on whatever node npx uses", async () => {
    const repo = fileURLToPath(new URL("../..", import.meta.url));
    const out = await runCommand("npx", ["--no-install", "flotillactl", "get", "clusters", "-o", "json"], { cwd: repo, env: { ...process.env, FLOTILLA_STATE_DIR: fleet.root } });
    assert.equal(out.code, 0, out.stderr);
    assert.deepEqual((JSON.parse(out.stdout) as { name: string }[]).map((c) => c.name), ["member1", "member2"]);
  });

  it("diffs what a member holds against what Flotilla renders, through its agent, never showing Secret values", async () => {
    const same = await ctl(["diff", "deployment/web", "-n", NS, "--cluster", "member2"]);
    assert.equal(same.code, 0, same.stderr);
    assert.equal(same.stdout, "");
    assert.match(same.stderr, /no differences: member2 holds what Flotilla renders/);

    // Objects already in member1 that Flotilla does not manage: Abort leaves them, so they differ.
    const m1 = fleet.members[0] as Cluster;
    await kubectl(m1, ["create", "namespace", NS]).catch(() => undefined);
    await apply(m1, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "pre", namespace: NS }, data: { a: "member" } }));
    await apply(m1, JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "creds", namespace: NS }, stringData: { token: "old-value" } }));
    await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "pre", namespace: NS }, data: { a: "fleet" } }));
    await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "creds", namespace: NS }, stringData: { token: "new-value" } }));
    for (const [kind, name] of [["ConfigMap", "pre"], ["Secret", "creds"]] as const) {
      await apply(
        fleet.control,
        JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name, namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind, name }], placement: { clusterAffinity: { clusterNames: ["member1"] } } } }),
      );
    }
    const cm = await eventually("the ConfigMap differs", () => ctl(["diff", "configmap/pre", "-n", NS, "--cluster", "member1"]), (r) => r.stdout !== "");
    assert.equal(cm.code, 0, cm.stderr);
    assert.match(cm.stdout, /^--- live\/ConfigMap\/adm\/pre/m);
    assert.match(cm.stdout, /^- {2}a: member$/m);
    assert.match(cm.stdout, /^\+ {2}a: fleet$/m);
    const secret = await eventually("the Secret differs", () => ctl(["diff", "secret/creds", "-n", NS, "--cluster", "member1"]), (r) => r.stdout !== "");
    assert.match(secret.stdout, /^- {2}token: hmac-sha256:[0-9a-f]{16}$/m);
    assert.match(secret.stdout, /^\+ {2}token: hmac-sha256:[0-9a-f]{16}$/m);
    for (const v of ["old-value", "new-value", Buffer.from("old-value").toString("base64"), Buffer.from("new-value").toString("base64")]) assert.ok(!secret.stdout.includes(v), "no Secret value is shown");
    const rendered = await ctl(["render", "secret/creds", "-n", NS, "--cluster", "member1", "-o", "json"]);
    assert.equal(rendered.code, 0, rendered.stderr);
    assert.match(JSON.parse(rendered.stdout).data.token, /^hmac-sha256:[0-9a-f]{16}$/, "render shows Secret values as keyed digests too");

    // The agent redacted the live Secret before the wire: a hub of our own receives keys and digests.
    const WIRE_VALUE = "wire-secret-value";
    // kubectl apply (client side) also copies the values into the last-applied-configuration annotation.
    await apply(m1, JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "wire", namespace: NS }, stringData: { password: WIRE_VALUE, user: "wire-user" } }));
    await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "wire", namespace: NS }, stringData: { password: WIRE_VALUE, user: "wire-user" } }));
    const hub = await ownHub(flotilla.certsDir, [{ group: "", version: "v1", kind: "Secret", namespace: NS, name: "wire" }]);
    try {
      await flotilla.stopAgent("member1");
      await flotilla.startAgent("member1", { hubPort: hub.port });
      const { message, wire } = await hub.response;
      assert.equal(message.error, "");
      const live = JSON.parse(Buffer.from(message.objects[0] ?? []).toString("utf8")) as { data: Record<string, string>; metadata: { annotations: Record<string, string> } };
      assert.deepEqual(Object.keys(live.data).sort(), ["password", "user"], "the keys travel");
      for (const v of Object.values(live.data)) assert.match(v, /^sha256:[0-9a-f]{12}$/);
      assert.match(live.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"] ?? "", /^sha256:[0-9a-f]{12}$/, "the annotation that repeats the values too");
      const bytes = wire.toString("latin1");
      for (const v of [WIRE_VALUE, "wire-user", Buffer.from(WIRE_VALUE).toString("base64"), Buffer.from("wire-user").toString("base64")]) assert.ok(!bytes.includes(v), `${v} never reaches a control plane`);
      // What users see is keyed with the fleet's key, on both sides alike, so equal values still compare equal.
      const render = await ctl(["render", "secret/wire", "-n", NS, "--cluster", "member1", "-o", "json"]);
      const key = secretDigestKey(await readFile(join(flotilla.certsDir, "hub.key"), "utf8"));
      const shown = keyedRedaction({ apiVersion: "v1", kind: "Secret", metadata: { name: "wire" }, data: live.data }, key).data as Record<string, string>;
      assert.equal(JSON.parse(render.stdout).data.password, shown.password);
      assert.notEqual(shown.password, live.data.password, "not the plain digest");
    } finally {
      hub.close();
      await flotilla.stopAgent("member1");
      await flotilla.startAgent("member1");
    }
    const agentLog = await readFile(join(flotilla.logsDir, "agent-member1.log"), "utf8");
    assert.ok(!agentLog.includes(WIRE_VALUE) && !agentLog.includes(Buffer.from(WIRE_VALUE).toString("base64")), "the agent never logs Secret values");
    await eventually("member1 connected again", () => ctl(["get", "clusters", "-o", "json"]), (r) => (JSON.parse(r.stdout) as { name: string; connected: boolean }[]).some((c) => c.name === "member1" && c.connected));

    // A cluster the template does not go to: all of it would be new.
    const preview = await ctl(["diff", "deployment/solo", "-n", NS, "--cluster", "member2"]);
    assert.equal(preview.code, 0, preview.stderr);
    assert.match(preview.stderr, /preview: member2 is not a target/);
    assert.match(preview.stdout, /^--- \/dev\/null/m);
  });

  it("diffs through a Service of two replicas: a call that lands on the replica without the agent tries another connection", async () => {
    const replica = await flotilla.startReplica();
    // A round-robin TCP balancer in front of both replicas (as a Service is), the standby first.
    const backends = [replica.hubPort, flotilla.hubPort];
    const picked: number[] = [];
    const sockets = new Set<Socket>();
    const balancer = createServer((client) => {
      const port = backends[picked.length % 2] as number;
      picked.push(port);
      const upstream = connectTcp(port, "127.0.0.1");
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on("close", () => sockets.delete(s));
      }
      // Either side closing closes the other: a half-closed pair would otherwise wait forever.
      client.pipe(upstream).pipe(client);
      client.on("error", () => upstream.destroy()).on("close", () => upstream.destroy());
      upstream.on("error", () => client.destroy()).on("close", () => client.destroy());
    });
    await new Promise<void>((resolve) => balancer.listen(0, "127.0.0.1", resolve));
    try {
      const port = (balancer.address() as AddressInfo).port;
      const r = await ctl(["diff", "deployment/web", "-n", NS, "--cluster", "member2", "--server", `127.0.0.1:${port}`]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /no differences/);
      assert.deepEqual(picked.slice(0, 2), [replica.hubPort, flotilla.hubPort], "the first connection reached the standby, the second the agent's replica");
    } finally {
      // close() waits for every accepted connection to end: end them, so a failure cannot hang here.
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => balancer.close(resolve));
    }
  });

  it("plans changes before they are applied: per template the policy, each cluster's replicas and Work now → after, and the diff", async () => {
    const web = JSON.parse(deployment("web")) as { spec: { replicas: number; template: { spec: { containers: { image: string }[] } } } };
    const write = async (name: string, text: string) => {
      const path = join(empty, name);
      await writeFile(path, text);
      return path;
    };
    type PlanJson = { templates: { template: { name: string }; policy: string; clusters: { cluster: string; change: string; planned?: { replicas: number; manifests: { spec: { template: { spec: { containers: { image: string }[] } } } }[] } }[] }[] };
    const changes = (p: PlanJson) => p.templates.map((t) => [t.template.name, t.clusters.map((c) => `${c.cluster}:${c.change}`)]);

    // The objects as applied now: nothing would change, and the hashes are the ones the agents hold.
    const same = await json<PlanJson>(["plan", "-f", await write("same.json", deployment("web"))]);
    assert.deepEqual(changes(same), [["web", ["member1:unchanged", "member2:unchanged"]]]);

    web.spec.replicas = 3;
    (web.spec.template.spec.containers[0] as { image: string }).image = "nginx:1.27";
    const changed = await write("changed.yaml", stringify(web));
    const t = await ctl(["plan", "-f", changed, "--diff"]);
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stderr, /^# Deployment adm\/web: PropagationPolicy adm\/web$/m);
    assert.match(t.stdout, /^TEMPLATE\s+CLUSTER\s+CHANGE\s+REPLICAS\s+HASH\s+ERROR$/m);
    assert.match(t.stdout, /^Deployment adm\/web\s+member1\s+changed\s+2 → 3\s+[0-9a-f]{12} → [0-9a-f]{12}\s+-$/m);
    assert.match(t.stdout, /^Deployment adm\/web\s+member2\s+changed\s+2 → 3\s/m);
    assert.match(t.stdout, /^# Deployment adm\/web on member1: changed\n--- now\/Deployment\/adm\/web\n\+\+\+ planned\/Deployment\/adm\/web$/m);
    assert.match(t.stdout, /^- {10}image: nginx:1\.25$/m);
    assert.match(t.stdout, /^\+ {10}image: nginx:1\.27$/m);
    const planned = await json<PlanJson>(["plan", "-f", changed]);
    const image = (p: PlanJson, c: string) => p.templates[0]?.clusters.find((x) => x.cluster === c)?.planned?.manifests[0]?.spec.template.spec.containers[0]?.image;
    assert.equal(image(planned, "member1"), "nginx:1.27");
    assert.equal(image(planned, "member2"), "nginx:1.26", "member2's tag override applies to the planned object too");
    const template = await getJson<{ spec: { replicas: number } }>(fleet.control, ["deploy", "-n", NS, "web"]);
    assert.equal(template?.spec.replicas, 2, "a plan applies nothing");

    // Policies in the file replace the stored ones: web moves to member2 only, where a new
    // override pins another image; a new object no policy selects comes along.
    const moved = await write(
      "moved.yaml",
      [deployment("web"), policy("web", ["member2"]), override("web-tag", "web", { imageOverrider: [{ component: "Tag", operator: "replace", value: "1.28" }] }), deployment("fresh")].join("\n---\n"),
    );
    const both = await json<PlanJson>(["plan", "-f", moved]);
    assert.deepEqual(changes(both), [
      ["web", ["member1:removed", "member2:changed"]],
      ["fresh", []],
    ]);
    assert.equal(image(both, "member2"), "nginx:1.28");
    assert.equal(both.templates[1]?.policy, "");
    const policyNow = await getJson<{ spec: { placement: { clusterAffinity: { clusterNames: string[] } } } }>(fleet.control, ["propagationpolicy", "-n", NS, "web"]);
    assert.deepEqual(policyNow?.spec.placement.clusterAffinity.clusterNames, ["member1", "member2"], "the stored policy is unchanged");

    // stdin
    const piped = await runCommand("sh", ["-c", `"${process.execPath}" "${CTL}" plan -f - < "${await write("fresh.json", deployment("fresh"))}"`], { cwd: empty, env: { ...process.env, FLOTILLA_STATE_DIR: fleet.root } });
    assert.equal(piped.code, 0, piped.stderr);
    assert.match(piped.stderr, /^# Deployment adm\/fresh: no propagation policy selects it$/m);
    assert.match(piped.stdout, /^Deployment adm\/fresh\s+-\s+unselected/m);

    // A Secret: which keys change shows, their values never do (plans end up in CI logs).
    const secretFile = await write(
      "secret.yaml",
      [
        JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "plan-secret", namespace: NS }, stringData: { token: "planned-value" } }),
        JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "plan-secret", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "Secret", name: "plan-secret" }] } }),
      ].join("\n---\n"),
    );
    for (const args of [["--diff"], ["-o", "json"], ["-o", "yaml"]]) {
      const r = await ctl(["plan", "-f", secretFile, ...args]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /token: hmac-sha256:[0-9a-f]{16}|"token": "hmac-sha256:[0-9a-f]{16}"/, args.join(" "));
      for (const v of ["planned-value", Buffer.from("planned-value").toString("base64")]) assert.ok(!r.stdout.includes(v) && !r.stderr.includes(v), `no Secret value with ${args.join(" ")}`);
    }

    // An object in a namespace the same file creates: planned as given, and said so.
    const elsewhere = JSON.parse(deployment("web")) as { metadata: { namespace: string } };
    elsewhere.metadata.namespace = "brand-new";
    const newNs = await json<PlanJson & { notes: string[] }>(["plan", "-f", await write("new-ns.json", JSON.stringify({ kind: "List", apiVersion: "v1", items: [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "brand-new" } }, elsewhere] }))]);
    assert.deepEqual(newNs.templates.map((x) => x.template.name), ["brand-new", "web"]);
    assert.deepEqual(newNs.notes, ['Deployment brand-new/web not checked by the control cluster: namespace "brand-new" does not exist there yet']);

    const badPolicy = JSON.parse(policy("web", ["member1"])) as { spec: { placement: Record<string, unknown> } };
    badPolicy.spec.placement.spreadConstraints = [{ spreadByField: "region", minGroups: 3, maxGroups: 1 }];
    const refusals: { args: string[]; code: number; message: RegExp }[] = [
      { args: ["plan", "-f", await write("bad.json", JSON.stringify({ ...web, spec: { ...web.spec, replicas: "many" } }))], code: 1, message: /INVALID_ARGUMENT: the control cluster would refuse Deployment adm\/web: .*replicas/ },
      { args: ["plan", "-f", await write("bad-policy.json", JSON.stringify(badPolicy))], code: 1, message: /INVALID_ARGUMENT: the control cluster would refuse PropagationPolicy adm\/web: .*minGroups/ },
      { args: ["plan", "-f", await write("empty.yaml", "# nothing\n")], code: 2, message: /empty\.yaml holds no object/ },
      { args: ["plan", "-f", await write("nameless.json", JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: {} }))], code: 1, message: /INVALID_ARGUMENT: the object has no metadata\.name/ },
      { args: ["plan", "-f", changed, "-n", "elsewhere"], code: 1, message: /INVALID_ARGUMENT: Deployment web names namespace "adm", not "elsewhere"/ },
      { args: ["plan", "-f", join(empty, "missing.yaml")], code: 1, message: /cannot read .*missing\.yaml/ },
      { args: ["plan"], code: 2, message: /--filename is required/ },
    ];
    for (const c of refusals) {
      const r = await ctl(c.args);
      assert.equal(r.code, c.code, `${c.args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, c.message, c.args.join(" "));
      assert.equal(r.stdout, "", "nothing on stdout when it fails");
    }
  });

  it("lists clusters and describes a template's propagation", async () => {
    const clusters = await json<{ name: string; ready: boolean; connected: boolean; kubernetesVersion: string }[]>(["get", "clusters"]);
    assert.deepEqual(clusters.map((c) => [c.name, c.ready, c.connected]), [["member1", true, true], ["member2", true, true]]);
    assert.match(clusters[0]?.kubernetesVersion ?? "", /^v1\.\d+/);
    const t = await ctl(["get", "clusters"]);
    assert.match(t.stdout, /^NAME\s+READY\s+CONNECTED\s+VERSION\s+NODES/);
    const rows = await eventually("both applied", () => json<{ cluster: string; replicas: number; applied: boolean }[]>(["describe", "deployment/web", "-n", NS]), (x) => x.every((c) => c.applied));
    assert.deepEqual(rows.map((c) => [c.cluster, c.replicas]), [["member1", 2], ["member2", 2]]);
  });

  it("serves Prometheus metrics on both sides: agents, Works, queues, reconcile latency, apply errors, stream bytes", async () => {
    const cp = await flotilla.controlPlaneMetrics();
    assert.equal(cp.flotilla_connected_agents, 2);
    assert.ok((cp['flotilla_works{cluster="member2"}'] ?? 0) >= 1, "Works per cluster");
    assert.ok((cp['flotilla_reconcile_duration_seconds_count{name="binding"}'] ?? 0) > 0, "reconcile latency of the binding controller");
    assert.ok('flotilla_workqueue_depth{name="status"}' in cp, "queue depth per controller");
    assert.ok((cp['flotilla_stream_bytes_sent_total{cluster="member2"}'] ?? 0) > 0, "bytes sent on member2's stream");
    const agent = await flotilla.agentMetrics("member2");
    assert.equal(agent.flotilla_agent_connected, 1);
    assert.ok("flotilla_agent_apply_errors_total" in agent);
    assert.ok((agent['flotilla_reconcile_duration_seconds_count{name="work"}'] ?? 0) > 0, "the agent's apply loop is timed");
  });

  it("says why a render fails, with exit code 1 for a failed call and 2 for bad usage", async () => {
    await apply(fleet.control, deployment("broken"));
    await apply(fleet.control, policy("broken", ["member1", "member2"]));
    await apply(fleet.control, override("broken-path", "broken", { plaintext: [{ path: "/spec/nothing/here", operator: "remove" }] }));
    const cases: { args: string[]; env?: Record<string, string>; code: number; message: RegExp }[] = [
      { args: ["render", "deployment/web", "-n", NS, "--cluster", "nope"], code: 1, message: /NOT_FOUND: cluster "nope" is not registered/ },
      { args: ["render", "gadget/web", "--cluster", "member1"], code: 1, message: /INVALID_ARGUMENT: the control cluster serves no resource named "gadget"/ },
      { args: ["render", "deployment/missing", "-n", NS, "--cluster", "member1"], code: 1, message: /NOT_FOUND: Deployment adm\/missing not found/ },
      { args: ["render", "deployment/broken", "-n", NS, "--cluster", "member2"], code: 1, message: /FAILED_PRECONDITION: ApplyOverridesFailed: .*\/spec\/nothing\/here/ },
      { args: ["render", "deployment/web", "-n", NS], code: 2, message: /--cluster is required/ },
      { args: ["render", "web", "--cluster", "member1"], code: 2, message: /expected <kind>\/<name>/ },
      { args: ["get", "clusters", "-o", "wide"], code: 2, message: /-o "wide": choose one of table, json, yaml/ },
      { args: ["frobnicate"], code: 2, message: /unknown command "frobnicate"/ },
      { args: ["get", "clusters", "--cert", join(flotilla.certsDir, "member1.crt"), "--key", join(flotilla.certsDir, "member1.key")], code: 1, message: /PERMISSION_DENIED: the Admin API needs an admin client certificate/ },
      // The server name is checked: the control plane's certificate names localhost, not this.
      { args: ["get", "clusters", "--server-name", "elsewhere.example"], code: 1, message: /UNAVAILABLE: .*elsewhere\.example/ },
      { args: ["get", "clusters"], env: { FLOTILLA_STATE_DIR: "" }, code: 1, message: /cannot read the control plane's address in \.flotilla\/flotilla-certs\/admin-endpoint/ },
      { args: ["get", "clusters", "--state-dir", empty], code: 1, message: /cannot read .*admin-endpoint: start the local fleet with `npm run up`/ },
    ];
    for (const c of cases) {
      const r = await ctl(c.args, c.env);
      assert.equal(r.code, c.code, `${c.args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, c.message, c.args.join(" "));
      assert.equal(r.stdout, "", "nothing on stdout when it fails");
    }
  });
});
