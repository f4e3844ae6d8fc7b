// End to end (issue 41): the member API. kubectl, holding only a kubeconfig for
// https://<control plane>/clusters/member1 and an admin's or viewer's client certificate, lists,
// watches and describes member1's objects through member1's agent; the member's RBAC decides on
// flotilla:<role>:<user>, a viewer never reads Secrets or execs, and no write passes until the
// member's agent runs with --member-api-writes (then the member's audit log names the caller).
// Paths that leave the cluster, unknown clusters and a disconnected agent get a Status.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { request } from "node:https";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ensureBinaries } from "../env/binaries.ts";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { goCommandEnv } from "../env/managed-process.ts";
import { appendPodLog } from "../env/pod-logs.ts";
import { issueAdminCertificate, type KeyPair } from "../../shared/pki.ts";
import { apply, eventually, kubectl, runCommand } from "./helpers.ts";
import { memberKubeconfig } from "./member-api.fixtures.ts";

const NS = "member-api-e2e";
const pod = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: NS, labels: { app: "probe" } }, spec: { containers: [{ name: "c", image: "nginx" }] } });

describe("the member API: each member's Kubernetes API through its agent's stream", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let m1: Cluster;
  let port: number;
  let ca: string;
  const kubeconfigs = new Map<string, string>();
  let kubectlBin: string;

  /** A kubeconfig for /clusters/<cluster> with a certificate of `user` in `role`: nothing of the member's. */
  const kubeconfigFor = async (user: string, role: "admin" | "viewer", cluster: string): Promise<string> => {
    const key = `${user}/${cluster}`;
    const path = kubeconfigs.get(key) ?? (await memberKubeconfig(flotilla, user, role, cluster));
    kubeconfigs.set(key, path);
    return path;
  };
  const through = async (user: string, role: "admin" | "viewer", args: string[], cluster = "member1") => runCommand(kubectlBin, ["--kubeconfig", await kubeconfigFor(user, role, cluster), ...args], { env: goCommandEnv(), timeoutMs: 60_000 });
  /** A raw request with the admin certificate, for what kubectl would not send. */
  const raw = async (path: string): Promise<{ status: number; body: string }> => {
    const caPair: KeyPair = { certPem: ca, keyPem: await readFile(join(flotilla.certsDir, "ca.key"), "utf8") };
    const cert = await issueAdminCertificate(caPair, "raw", 3_600_000, "admin");
    return new Promise((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, path, ca, cert: cert.certPem, key: cert.keyPem, servername: "localhost" }, (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.end();
    });
  };

  before(async () => {
    fleet = await startFleet({ members: 2, auditMembers: true });
    flotilla = await startFlotilla(fleet, { memberApi: true });
    port = flotilla.memberApiPort as number;
    [m1] = fleet.members as [Cluster];
    ca = await readFile(join(flotilla.certsDir, "ca.crt"), "utf8");
    kubectlBin = join(await ensureBinaries(), "kubectl");
    // The member's admin binds Flotilla's groups, as the guide says. Here viewers may even read
    // Secrets in the member's RBAC: the control plane and the agent still refuse them a viewer.
    for (const m of fleet.members) {
      await kubectl(m, ["create", "clusterrole", "fleet-reader", "--verb=get,list,watch", "--resource=pods,pods/log,events,namespaces,secrets,deployments.apps"]);
      await kubectl(m, ["create", "clusterrolebinding", "flotilla-viewers", "--clusterrole=fleet-reader", "--group=flotilla:viewers"]);
      await kubectl(m, ["create", "clusterrolebinding", "flotilla-admins", "--clusterrole=cluster-admin", "--group=flotilla:admins"]);
    }
    await kubectl(m1, ["create", "namespace", NS]);
    await apply(m1, pod("probe-1"));
    await kubectl(m1, ["create", "secret", "generic", "creds", "-n", NS, "--from-literal=token=s3cret"]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("kubectl get pods -A through the control plane lists what member1's apiserver lists", async () => {
    const r = await through("alice", "admin", ["get", "pods", "-A", "-o", "name"]);
    assert.equal(r.code, 0, r.stderr);
    const direct = await kubectl(m1, ["get", "pods", "-A", "-o", "name"]);
    assert.deepEqual(r.stdout.split("\n").sort(), direct.split("\n").sort());
    assert.match(r.stdout, /pod\/probe-1/);
    // Discovery and OpenAPI pass too: api-resources and explain read them.
    const res = await through("alice", "admin", ["api-resources", "-o", "name"]);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^deployments\.apps$/m);
    const explain = await through("alice", "admin", ["explain", "pod.spec.containers.image"]);
    assert.equal(explain.code, 0, explain.stderr);
    assert.match(explain.stdout, /image/);
  });

  it("a watch through the control plane sees an object created afterwards, and describe shows its events", async () => {
    const child = spawn(kubectlBin, ["--kubeconfig", await kubeconfigFor("alice", "admin", "member1"), "get", "pods", "-n", NS, "-w", "-o", "name"], { env: goCommandEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let seen = "";
    child.stdout.on("data", (c: Buffer) => (seen += c.toString()));
    try {
      await eventually("the watch lists probe-1", async () => (seen.includes("pod/probe-1") ? true : undefined), () => true, 30_000);
      await apply(m1, pod("probe-2"));
      await eventually("the watch sees probe-2", async () => (seen.includes("pod/probe-2") ? true : undefined), () => true, 30_000);
    } finally {
      child.kill("SIGKILL");
    }
    const described = await through("alice", "admin", ["describe", "pod", "-n", NS, "probe-2"]);
    assert.equal(described.code, 0, described.stderr);
    assert.match(described.stdout, /^Name:\s+probe-2$/m);
    assert.match(described.stdout, /^Events:/m);
  });

  it("kubectl logs -f through the control plane follows a pod's log: a line written afterwards arrives", async () => {
    await appendPodLog(m1, "before-follow");
    const child = spawn(kubectlBin, ["--kubeconfig", await kubeconfigFor("vera", "viewer", "member1"), "logs", "-f", "-n", NS, "probe-1"], { env: goCommandEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let seen = "";
    child.stdout.on("data", (c: Buffer) => (seen += c.toString()));
    try {
      await eventually("the log so far", async () => (seen.includes("before-follow") ? true : undefined), () => true, 30_000);
      await appendPodLog(m1, "after-follow-41");
      await eventually("the line written while following", async () => (seen.includes("after-follow-41") ? true : undefined), () => true, 30_000);
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("a viewer reads pods but never Secrets, and cannot exec or delete", async () => {
    const pods = await through("vera", "viewer", ["get", "pods", "-n", NS, "-o", "name"]);
    assert.equal(pods.code, 0, pods.stderr);
    assert.match(pods.stdout, /pod\/probe-1/);
    const secrets = await through("vera", "viewer", ["get", "secrets", "-n", NS]);
    assert.notEqual(secrets.code, 0);
    assert.match(secrets.stderr, /vera: a viewer certificate may not read Secrets/);
    const one = await through("vera", "viewer", ["get", "secret", "-n", NS, "creds", "-o", "json"]);
    assert.notEqual(one.code, 0);
    assert.doesNotMatch(one.stdout + one.stderr, /s3cret|czNjcmV0/);
    const exec = await through("vera", "viewer", ["exec", "-n", NS, "probe-1", "--", "true"]);
    assert.notEqual(exec.code, 0);
    assert.match(exec.stderr, /a viewer certificate only reads/);
    const del = await through("vera", "viewer", ["delete", "pod", "-n", NS, "probe-1", "--wait=false"]);
    assert.notEqual(del.code, 0);
    assert.match(del.stderr, /a viewer certificate only reads/);
  });

  it("an admin may not write or exec until the member's agent allows writes; then it writes as itself, in the member's audit log", async () => {
    const exec = await through("alice", "admin", ["exec", "-n", NS, "probe-1", "--", "true"]);
    assert.notEqual(exec.code, 0);
    assert.match(exec.stderr, /writes through the member API .* are off in member1/);
    const del = await through("alice", "admin", ["delete", "pod", "-n", NS, "probe-1", "--wait=false"]);
    assert.notEqual(del.code, 0);
    assert.match(del.stderr, /are off in member1: its agent runs without --member-api-writes/);
    assert.ok(await kubectl(m1, ["get", "pod", "-n", NS, "probe-1", "-o", "name"]));

    await flotilla.stopAgent("member1");
    await flotilla.startAgent("member1", { args: ["--member-api-writes"] });
    const deleted = await eventually("the admin's delete passes", async () => {
      const r = await through("alice", "admin", ["delete", "pod", "-n", NS, "probe-1", "--wait=false"]);
      return r.code === 0 ? r : undefined;
    }, () => true, 30_000);
    assert.match(deleted.stdout, /deleted/);
    // exec is carried both ways now: the member's kubelet (kwok, which runs no command) answers it, not Flotilla.
    const execOn = await through("alice", "admin", ["exec", "-n", NS, "probe-2", "--", "true"]);
    assert.notEqual(execOn.code, 0);
    assert.match(execOn.stderr, /no exec found for container/);
    // A viewer still may not, whatever the agent allows.
    const viewerDel = await through("vera", "viewer", ["delete", "pod", "-n", NS, "probe-2", "--wait=false"]);
    assert.notEqual(viewerDel.code, 0);
    const audit = await readFile(m1.auditLogPath as string, "utf8");
    const entry = audit.split("\n").filter(Boolean).map((l) => JSON.parse(l) as { verb: string; objectRef?: { name?: string }; impersonatedUser?: { username: string; groups?: string[] } }).find((e) => e.verb === "delete" && e.objectRef?.name === "probe-1");
    assert.equal(entry?.impersonatedUser?.username, "flotilla:admin:alice");
    assert.ok(entry?.impersonatedUser?.groups?.includes("flotilla:admins"));
  });

  it("a path that leaves its cluster, an unknown cluster and an agent that is not connected get a Status, not another member", async () => {
    for (const path of ["/clusters/member1/../member2/api/v1/namespaces", "/clusters/member1/api/v1/namespaces/%2e%2e/secrets", "/clusters/member1//api", "/clusters/member1/api/v1/namespaces/x/%73ecrets"]) {
      const r = await raw(path);
      assert.equal(r.status, 400, `${path}: ${r.body}`);
      assert.match(r.body, /"kind":"Status"/);
    }
    const unknown = await raw("/clusters/nowhere/api");
    assert.equal(unknown.status, 404);
    assert.match(unknown.body, /cluster \\"nowhere\\" not found/);
    await flotilla.stopAgent("member2");
    const away = await raw("/clusters/member2/api");
    assert.equal(away.status, 503);
    assert.match(away.body, /the agent of member2 is not connected/);
    await flotilla.startAgent("member2");
    await eventually("member2 answers again", async () => ((await raw("/clusters/member2/api")).status === 200 ? true : undefined), () => true, 30_000);
  });

  it("with two replicas, a request for a member whose agent streams to the other replica is carried there", async () => {
    const replica = await flotilla.startReplica();
    await flotilla.stopAgent("member2");
    await flotilla.startAgent("member2", { hubPort: replica.hubPort });
    await apply(fleet.members[1] as Cluster, JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: NS } }));
    const listed = await eventually("member2's namespaces through the first replica", async () => {
      const r = await through("vera", "viewer", ["get", "namespaces", "-o", "name"], "member2");
      return r.code === 0 ? r.stdout : undefined;
    }, () => true, 60_000);
    assert.match(listed, new RegExp(`namespace/${NS}`));
    // Forwarded, the viewer is still a viewer there.
    const secrets = await through("vera", "viewer", ["get", "secrets", "-A"], "member2");
    assert.notEqual(secrets.code, 0);
    assert.match(secrets.stderr, /may not read Secrets/);
    await replica.process.stop();
  });
});
