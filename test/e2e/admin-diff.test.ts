// flotillactl's diff and plan against a real control plane: a preview for a cluster a template does
// not go to, what a member holds against what Flotilla renders (through its agent, never showing
// Secret values), and what a change would do before it is applied. The rest of flotillactl:
// admin.test.ts.
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { stringify } from "yaml";
import { type AddressInfo, connect as connectTcp, createServer, type Socket } from "node:net";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { adminFleet, CTL, deployment, NS, override, policy } from "./admin.fixtures.ts";
import { apply, eventually, getJson, kubectl, runCommand } from "./helpers.ts";
import { ownHub } from "./own-hub.ts";
import { keyedRedaction, secretDigestKey } from "../../control-plane/admin/secret-digest.ts";

describe("flotillactl diff and plan", () => {
  const a = adminFleet();

  it("previews a template for a cluster it does not go to", async () => {
    await apply(a.fleet.control, deployment("solo"));
    await apply(a.fleet.control, policy("solo", ["member1"]));
    await apply(a.fleet.control, override("solo-tag", "solo", { imageOverrider: [{ component: "Tag", operator: "replace", value: "preview" }] }));
    const r = await a.ctl(["render", "deployments.apps/solo", "-n", NS, "--cluster", "member2", "-o", "json"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /preview: member2 is not a target/);
    assert.equal(JSON.parse(r.stdout).spec.template.spec.containers[0].image, "nginx:preview");
  });

  it("diffs what a member holds against what Flotilla renders, through its agent, never showing Secret values", async () => {
    const same = await a.ctl(["diff", "deployment/web", "-n", NS, "--cluster", "member2"]);
    assert.equal(same.code, 0, same.stderr);
    assert.equal(same.stdout, "");
    assert.match(same.stderr, /no differences: member2 holds what Flotilla renders/);

    // Objects already in member1 that Flotilla does not manage: Abort leaves them, so they differ.
    const m1 = a.fleet.members[0] as Cluster;
    await kubectl(m1, ["create", "namespace", NS]).catch(() => undefined);
    await apply(m1, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "pre", namespace: NS }, data: { a: "member" } }));
    await apply(m1, JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "creds", namespace: NS }, stringData: { token: "old-value" } }));
    await apply(a.fleet.control, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "pre", namespace: NS }, data: { a: "fleet" } }));
    await apply(a.fleet.control, JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "creds", namespace: NS }, stringData: { token: "new-value" } }));
    for (const [kind, name] of [["ConfigMap", "pre"], ["Secret", "creds"]] as const) {
      await apply(
        a.fleet.control,
        JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name, namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind, name }], placement: { clusterAffinity: { clusterNames: ["member1"] } } } }),
      );
    }
    const cm = await eventually("the ConfigMap differs", () => a.ctl(["diff", "configmap/pre", "-n", NS, "--cluster", "member1"]), (r) => r.stdout !== "");
    assert.equal(cm.code, 0, cm.stderr);
    assert.match(cm.stdout, /^--- live\/ConfigMap\/adm\/pre/m);
    assert.match(cm.stdout, /^- {2}a: member$/m);
    assert.match(cm.stdout, /^\+ {2}a: fleet$/m);
    const secret = await eventually("the Secret differs", () => a.ctl(["diff", "secret/creds", "-n", NS, "--cluster", "member1"]), (r) => r.stdout !== "");
    assert.match(secret.stdout, /^- {2}token: hmac-sha256:[0-9a-f]{16}$/m);
    assert.match(secret.stdout, /^\+ {2}token: hmac-sha256:[0-9a-f]{16}$/m);
    for (const v of ["old-value", "new-value", Buffer.from("old-value").toString("base64"), Buffer.from("new-value").toString("base64")]) assert.ok(!secret.stdout.includes(v), "no Secret value is shown");
    const rendered = await a.ctl(["render", "secret/creds", "-n", NS, "--cluster", "member1", "-o", "json"]);
    assert.equal(rendered.code, 0, rendered.stderr);
    assert.match(JSON.parse(rendered.stdout).data.token, /^hmac-sha256:[0-9a-f]{16}$/, "render shows Secret values as keyed digests too");

    // The agent redacted the live Secret before the wire: a hub of our own receives keys and digests.
    const WIRE_VALUE = "wire-secret-value";
    // kubectl apply (client side) also copies the values into the last-applied-configuration annotation.
    await apply(m1, JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "wire", namespace: NS }, stringData: { password: WIRE_VALUE, user: "wire-user" } }));
    await apply(a.fleet.control, JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "wire", namespace: NS }, stringData: { password: WIRE_VALUE, user: "wire-user" } }));
    const hub = await ownHub(a.flotilla.certsDir, [{ group: "", version: "v1", kind: "Secret", namespace: NS, name: "wire" }]);
    try {
      await a.flotilla.stopAgent("member1");
      await a.flotilla.startAgent("member1", { hubPort: hub.port });
      const { message, wire } = await hub.response;
      assert.equal(message.error, "");
      const live = JSON.parse(Buffer.from(message.objects[0] ?? []).toString("utf8")) as { data: Record<string, string>; metadata: { annotations: Record<string, string> } };
      assert.deepEqual(Object.keys(live.data).sort(), ["password", "user"], "the keys travel");
      for (const v of Object.values(live.data)) assert.match(v, /^sha256:[0-9a-f]{12}$/);
      assert.match(live.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"] ?? "", /^sha256:[0-9a-f]{12}$/, "the annotation that repeats the values too");
      const bytes = wire.toString("latin1");
      for (const v of [WIRE_VALUE, "wire-user", Buffer.from(WIRE_VALUE).toString("base64"), Buffer.from("wire-user").toString("base64")]) assert.ok(!bytes.includes(v), `${v} never reaches a control plane`);
      // What users see is keyed with the fleet's key, on both sides alike, so equal values still compare equal.
      const render = await a.ctl(["render", "secret/wire", "-n", NS, "--cluster", "member1", "-o", "json"]);
      const key = secretDigestKey(await readFile(join(a.flotilla.certsDir, "hub.key"), "utf8"));
      const shown = keyedRedaction({ apiVersion: "v1", kind: "Secret", metadata: { name: "wire" }, data: live.data }, key).data as Record<string, string>;
      assert.equal(JSON.parse(render.stdout).data.password, shown.password);
      assert.notEqual(shown.password, live.data.password, "not the plain digest");
    } finally {
      hub.close();
      await a.flotilla.stopAgent("member1");
      await a.flotilla.startAgent("member1");
    }
    const agentLog = await readFile(join(a.flotilla.logsDir, "agent-member1.log"), "utf8");
    assert.ok(!agentLog.includes(WIRE_VALUE) && !agentLog.includes(Buffer.from(WIRE_VALUE).toString("base64")), "the agent never logs Secret values");
    await eventually("member1 connected again", () => a.ctl(["get", "clusters", "-o", "json"]), (r) => (JSON.parse(r.stdout) as { name: string; connected: boolean }[]).some((c) => c.name === "member1" && c.connected));

    // A cluster the template does not go to: all of it would be new.
    const preview = await a.ctl(["diff", "deployment/solo", "-n", NS, "--cluster", "member2"]);
    assert.equal(preview.code, 0, preview.stderr);
    assert.match(preview.stderr, /preview: member2 is not a target/);
    assert.match(preview.stdout, /^--- \/dev\/null/m);
  });

  it("diffs through a Service of two replicas: a call that lands on the replica without the agent tries another connection", async () => {
    const replica = await a.flotilla.startReplica();
    // A round-robin TCP balancer in front of both replicas (as a Service is), the standby first.
    const backends = [replica.hubPort, a.flotilla.hubPort];
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
      const r = await a.ctl(["diff", "deployment/web", "-n", NS, "--cluster", "member2", "--server", `127.0.0.1:${port}`]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /no differences/);
      assert.deepEqual(picked.slice(0, 2), [replica.hubPort, a.flotilla.hubPort], "the first connection reached the standby, the second the agent's replica");
    } finally {
      // close() waits for every accepted connection to end: end them, so a failure cannot hang here.
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => balancer.close(resolve));
    }
  });

  it("plans changes before they are applied: per template the policy, each cluster's replicas and Work now → after, and the diff", async () => {
    const web = JSON.parse(deployment("web")) as { spec: { replicas: number; template: { spec: { containers: { image: string }[] } } } };
    const write = async (name: string, text: string) => {
      const path = join(a.empty, name);
      await writeFile(path, text);
      return path;
    };
    type PlanJson = { templates: { template: { name: string }; policy: string; clusters: { cluster: string; change: string; planned?: { replicas: number; manifests: { spec: { template: { spec: { containers: { image: string }[] } } } }[] } }[] }[] };
    const changes = (p: PlanJson) => p.templates.map((t) => [t.template.name, t.clusters.map((c) => `${c.cluster}:${c.change}`)]);

    // The objects as applied now: nothing would change, and the hashes are the ones the agents hold.
    const same = await a.json<PlanJson>(["plan", "-f", await write("same.json", deployment("web"))]);
    assert.deepEqual(changes(same), [["web", ["member1:unchanged", "member2:unchanged"]]]);

    web.spec.replicas = 3;
    (web.spec.template.spec.containers[0] as { image: string }).image = "nginx:1.27";
    const changed = await write("changed.yaml", stringify(web));
    const t = await a.ctl(["plan", "-f", changed, "--diff"]);
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stderr, /^# Deployment adm\/web: PropagationPolicy adm\/web$/m);
    assert.match(t.stdout, /^TEMPLATE\s+CLUSTER\s+CHANGE\s+REPLICAS\s+HASH\s+ERROR$/m);
    assert.match(t.stdout, /^Deployment adm\/web\s+member1\s+changed\s+2 → 3\s+[0-9a-f]{12} → [0-9a-f]{12}\s+-$/m);
    assert.match(t.stdout, /^Deployment adm\/web\s+member2\s+changed\s+2 → 3\s/m);
    assert.match(t.stdout, /^# Deployment adm\/web on member1: changed\n--- now\/Deployment\/adm\/web\n\+\+\+ planned\/Deployment\/adm\/web$/m);
    assert.match(t.stdout, /^- {10}image: nginx:1\.25$/m);
    assert.match(t.stdout, /^\+ {10}image: nginx:1\.27$/m);
    const planned = await a.json<PlanJson>(["plan", "-f", changed]);
    const image = (p: PlanJson, c: string) => p.templates[0]?.clusters.find((x) => x.cluster === c)?.planned?.manifests[0]?.spec.template.spec.containers[0]?.image;
    assert.equal(image(planned, "member1"), "nginx:1.27");
    assert.equal(image(planned, "member2"), "nginx:1.26", "member2's tag override applies to the planned object too");
    const template = await getJson<{ spec: { replicas: number } }>(a.fleet.control, ["deploy", "-n", NS, "web"]);
    assert.equal(template?.spec.replicas, 2, "a plan applies nothing");

    // Policies in the file replace the stored ones: web moves to member2 only, where a new
    // override pins another image; a new object no policy selects comes along.
    const moved = await write(
      "moved.yaml",
      [deployment("web"), policy("web", ["member2"]), override("web-tag", "web", { imageOverrider: [{ component: "Tag", operator: "replace", value: "1.28" }] }), deployment("fresh")].join("\n---\n"),
    );
    const both = await a.json<PlanJson>(["plan", "-f", moved]);
    assert.deepEqual(changes(both), [
      ["web", ["member1:removed", "member2:changed"]],
      ["fresh", []],
    ]);
    assert.equal(image(both, "member2"), "nginx:1.28");
    assert.equal(both.templates[1]?.policy, "");
    const policyNow = await getJson<{ spec: { placement: { clusterAffinity: { clusterNames: string[] } } } }>(a.fleet.control, ["propagationpolicy", "-n", NS, "web"]);
    assert.deepEqual(policyNow?.spec.placement.clusterAffinity.clusterNames, ["member1", "member2"], "the stored policy is unchanged");

    // stdin
    const piped = await runCommand("sh", ["-c", `"${process.execPath}" "${CTL}" plan -f - < "${await write("fresh.json", deployment("fresh"))}"`], { cwd: a.empty, env: { ...process.env, FLOTILLA_STATE_DIR: a.fleet.root } });
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
      const r = await a.ctl(["plan", "-f", secretFile, ...args]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /token: hmac-sha256:[0-9a-f]{16}|"token": "hmac-sha256:[0-9a-f]{16}"/, args.join(" "));
      for (const v of ["planned-value", Buffer.from("planned-value").toString("base64")]) assert.ok(!r.stdout.includes(v) && !r.stderr.includes(v), `no Secret value with ${args.join(" ")}`);
    }

    // An object in a namespace the same file creates: planned as given, and said so.
    const elsewhere = JSON.parse(deployment("web")) as { metadata: { namespace: string } };
    elsewhere.metadata.namespace = "brand-new";
    const newNs = await a.json<PlanJson & { notes: string[] }>(["plan", "-f", await write("new-ns.json", JSON.stringify({ kind: "List", apiVersion: "v1", items: [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "brand-new" } }, elsewhere] }))]);
    assert.deepEqual(newNs.templates.map((x) => x.template.name), ["brand-new", "web"]);
    assert.deepEqual(newNs.notes, ['Deployment brand-new/web not checked by the control cluster: namespace "brand-new" does not exist there yet']);

    const badPolicy = JSON.parse(policy("web", ["member1"])) as { spec: { placement: Record<string, unknown> } };
    badPolicy.spec.placement.spreadConstraints = [{ spreadByField: "region", minGroups: 3, maxGroups: 1 }];
    const refusals: { args: string[]; code: number; message: RegExp }[] = [
      { args: ["plan", "-f", await write("bad.json", JSON.stringify({ ...web, spec: { ...web.spec, replicas: "many" } }))], code: 1, message: /INVALID_ARGUMENT: the control cluster would refuse Deployment adm\/web: .*replicas/ },
      { args: ["plan", "-f", await write("bad-policy.json", JSON.stringify(badPolicy))], code: 1, message: /INVALID_ARGUMENT: the control cluster would refuse PropagationPolicy adm\/web: .*minGroups/ },
      { args: ["plan", "-f", await write("a.empty.yaml", "# nothing\n")], code: 2, message: /a.empty\.yaml holds no object/ },
      { args: ["plan", "-f", await write("nameless.json", JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: {} }))], code: 1, message: /INVALID_ARGUMENT: the object has no metadata\.name/ },
      { args: ["plan", "-f", changed, "-n", "elsewhere"], code: 1, message: /INVALID_ARGUMENT: Deployment web names namespace "adm", not "elsewhere"/ },
      { args: ["plan", "-f", join(a.empty, "missing.yaml")], code: 1, message: /cannot read .*missing\.yaml/ },
      { args: ["plan"], code: 2, message: /--filename is required/ },
    ];
    for (const c of refusals) {
      const r = await a.ctl(c.args);
      assert.equal(r.code, c.code, `${c.args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, c.message, c.args.join(" "));
      assert.equal(r.stdout, "", "nothing on stdout when it fails");
    }
  });
});
