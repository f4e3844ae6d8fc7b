// Fuzzing the member API (issue 41) against a real fleet: generated paths (traversals, escapes,
// backslashes, non-ASCII, very long, another cluster's name anywhere, unknown clusters), bodies
// past 3 MiB, headers that try to take another identity, slow readers and callers who leave
// mid-answer. Every request gets a defined answer (a Kubernetes Status with its code, or the
// HTTP parser's own 400/431 for a request line it cannot read), nothing of member2's ever comes
// back through /clusters/member1, and the control plane keeps serving everyone else.
import assert from "node:assert/strict";
import { request } from "node:https";
import { connect as tlsConnect } from "node:tls";
import type { IncomingMessage } from "node:http";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import type { KubeRest } from "../../shared/kube-rest.ts";
import { type MemberApiFleet, startMemberApiFleet } from "../bench/member-api-fleet.ts";
import { type Answer, type Endpoint, openWatch, send, type Watch } from "../bench/member-api-http.ts";
import { eventually, sleep } from "./helpers.ts";

const NS = "fuzz";
const BIG = "fuzz-big";
const MARKER2 = "only-in-member2-7f3a";
const SEED = Number(process.env.FLOTILLA_FUZZ_SEED ?? 20261201);
const RUNS = Number(process.env.FLOTILLA_FUZZ_RUNS ?? 150);
const MIB = 1024 * 1024;
const LIMIT = 64;
const marker = `/api/v1/namespaces/${NS}/configmaps/marker`;

/** The body as a Kubernetes Status, or undefined. */
const statusOf = (a: Answer) => {
  try {
    const s = JSON.parse(a.body.toString("utf8")) as { kind?: string; code?: number; message?: string };
    return s.kind === "Status" ? s : undefined;
  } catch {
    return undefined;
  }
};

/** What the control plane must refuse in a path as it comes (independent of its code): 400 or 404 before anything reaches a member. */
function refusal(wire: string): { status: number[]; parser?: true } | undefined {
  if ([...wire].some((c) => c.charCodeAt(0) > 0x7e || c.charCodeAt(0) <= 0x20)) return { status: [400], parser: true };
  if (wire.length > 16_000) return { status: [431], parser: true };
  const m = /^\/clusters\/([^/?]*)(.*)$/.exec(wire);
  if (m === null) return { status: [404] };
  if (m[1] !== "member1") return { status: [400, 404] };
  const bare = (m[2] as string).split("?")[0] as string;
  const segments = bare.split("/").slice(1);
  if (bare.includes("%") || segments.some((s, i) => s === "." || s === ".." || (s === "" && i < segments.length - 1)) || wire.length > 8_000) return { status: [400] };
  return undefined;
}

describe("the member API under fuzzing: paths, bodies, identities, slow and vanishing callers", () => {
  let mf: MemberApiFleet;
  let admin: Endpoint;
  let viewer: Endpoint;
  let m1: KubeRest;
  let control: KubeRest;
  /** Another caller is still served: member1's marker, through the member API. */
  const serving = async () => {
    const a = await send(admin, "GET", `/clusters/member1${marker}`);
    assert.equal(a.status, 200, a.body.toString());
    assert.match(a.body.toString(), /"who":"member1"/);
  };
  const broken = async () => (await mf.flotilla.controlPlaneMetrics())['flotilla_member_api_requests_total{code="broken"}'] ?? 0;

  before(async () => {
    mf = await startMemberApiFleet({ members: 2, logLevel: "info" });
    admin = await mf.proxy("alice", "admin", "member1", "");
    viewer = await mf.proxy("vera", "viewer", "member1", "");
    m1 = mf.rest("member1");
    control = mf.rest("control");
    for (const m of mf.fleet.members) {
      const r = mf.rest(m.name);
      await r.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } } });
      await r.request("POST", `/api/v1/namespaces/${NS}/configmaps`, { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "marker", namespace: NS }, data: { who: m.name === "member1" ? "member1" : MARKER2 } } });
      await r.request("POST", `/api/v1/namespaces/${NS}/secrets`, { body: { apiVersion: "v1", kind: "Secret", metadata: { name: "creds", namespace: NS }, stringData: { token: m.name === "member1" ? "s3cret" : MARKER2 } } });
    }
    // 16 MiB of ConfigMaps: a list of them outlasts the window and both sockets' buffers.
    await m1.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: BIG } } });
    await Promise.all(Array.from({ length: 20 }, (_, i) => m1.request("POST", `/api/v1/namespaces/${BIG}/configmaps`, { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `big-${i}`, namespace: BIG }, data: { v: "x".repeat(800 * 1024) } } })));
  });
  after(() => mf?.stop());

  it(`generated paths (${RUNS} runs, seed ${SEED}): a Status with the right code, member1's own answer, never member2's`, async (t) => {
    // Weighted so that both refused paths and paths carried to member1 come up often.
    const prefix = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom("/clusters/member1", "/clusters/member1/", "/clusters/member1?", "/clusters/member1/clusters/member2", "/clusters/member1/api/v1/namespaces/fuzz/configmaps") },
      { weight: 2, arbitrary: fc.constantFrom("/clusters/member2/..", "/clusters/member1/..", "/clusters//member1", "//clusters/member1", "/clusters/./member1", "/clusters/member1member2", "/clusters/Member1", "/clusters/nowhere", "/clusters/member3", "/clusters/member1\\..\\member2", "/clusters/member1%2f..%2fmember2", "/clusters/member1.member2", "/api/v1") },
    );
    const token = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom("member2", "clusters", "api", "v1", "namespaces", NS, "configmaps", "marker", "secrets", "creds", "\\", "..\\..", ";", "#", "~", "*", "..;", "...") },
      { weight: 1, arbitrary: fc.constantFrom("..", ".", "", "%2e%2e", "%2E", ".%2e", "%2f", "%2F", "%5c", "%c0%ae", "%00", "\u2025", "\uff0e\uff0e", "é") },
    );
    const query = fc.constantFrom("", "?watch=0", "?x=/../member2", "?labelSelector=a%3Db", "?path=..%2f..%2fmember2", "?limit=1&continue=%2e%2e");
    const path = fc.tuple(prefix, fc.array(token, { maxLength: 7 }), query).map(([p, ts, q]) => `${p}${ts.map((t) => `/${t}`).join("")}${q}`);
    const long = `/clusters/member1/api/${"a".repeat(9_000)}`;
    const huge = `/clusters/member1/api/${"a".repeat(20_000)}`;
    const seen = { refused: 0, carried: 0, unreadable: 0 };
    await fc.assert(
      fc.asyncProperty(path, async (p) => {
        // The path's UTF-8 bytes as they go on the wire.
        const wire = Buffer.from(p, "utf8").toString("latin1");
        const a = await send(admin, "GET", wire);
        const text = a.body.toString("utf8");
        assert.doesNotMatch(text, new RegExp(MARKER2), `${p}: member2's data came back`);
        const want = refusal(wire);
        if (want !== undefined) assert.ok(want.status.includes(a.status), `${p}: ${a.status} ${text.slice(0, 200)}, want ${want.status}`);
        seen[want === undefined ? "carried" : want.parser ? "unreadable" : "refused"]++;
        if (want?.parser) return;
        if (want !== undefined) {
          assert.equal(statusOf(a)?.code, a.status, `${p}: ${a.status} without a Status: ${text.slice(0, 200)}`);
          assert.match(text, /the path must hold no|is not a cluster name|not found|serves \/clusters/, p);
        } else if (a.status >= 400 && text.trim() !== "404 page not found") {
          // Carried to member1: its apiserver's own answer (a Status, or Go's plain 404 outside its API).
          assert.equal(statusOf(a)?.code, a.status, `${p}: ${a.status} without a Status: ${text.slice(0, 200)}`);
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true, examples: [[`/clusters/member1${marker}`], ["/clusters/member1/clusters/member2" + marker], [`/clusters/member1${marker}?x=/../../member2`], [long], [huge], ["/clusters/member1/api/v1/namespaces/fuzz/configmaps/\u2025/marker"]] },
    );
    // The generator reaches both sides of the line: refused paths and paths carried to member1.
    t.diagnostic(`paths refused ${seen.refused}, carried to member1 ${seen.carried}, unreadable to the HTTP parser ${seen.unreadable}`);
    assert.ok(seen.refused >= 20 && seen.carried >= 20 && seen.unreadable >= 2, JSON.stringify(seen));
    await serving();
  });

  it("every method gets an answer: reads pass (as member1 answers them), writes are off, the rest are not carried", async () => {
    const want: [string, number, RegExp | undefined][] = [
      ["GET", 200, undefined], ["HEAD", (await send(await mf.direct("member1"), "HEAD", marker)).status, undefined], ["POST", 403, /are off in member1/], ["PUT", 403, /are off in member1/], ["PATCH", 403, /are off in member1/], ["DELETE", 403, /are off in member1/],
      ["OPTIONS", 405, /does not carry/], ["TRACE", 405, /does not carry/], ["PROPFIND", 405, /does not carry/],
    ];
    for (const [method, status, message] of want) {
      const a = await send(admin, method, `/clusters/member1${marker}`).catch((err: Error) => assert.fail(`${method}: no answer: ${err.message}`));
      assert.equal(a.status, status, `${method}: ${a.body.toString().slice(0, 200)}`);
      if (message !== undefined) assert.match(statusOf(a)?.message ?? "", message, method);
    }
    const options = await send(viewer, "OPTIONS", `/clusters/member1${marker}`);
    assert.equal(options.status, 403);
    await serving();
  });

  // Node closes a CONNECT unanswered unless the server listens for it (found here first).
  it("CONNECT gets a 405 Status, as member1's apiserver answers it", async () => {
    const answer = await new Promise<string>((resolve) => {
      const socket = tlsConnect({ ...admin.tls, host: admin.host, port: admin.port }, () => socket.write(`CONNECT /clusters/member1${marker} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`));
      let got = "";
      socket.on("data", (c: Buffer) => (got += c.toString()));
      socket.on("close", () => resolve(got));
      socket.on("error", () => undefined);
      setTimeout(() => socket.destroy(), 10_000).unref();
    });
    await serving();
    assert.match(answer, /^HTTP\/1\.1 405 /, `the answer: ${JSON.stringify(answer.slice(0, 100))}`);
    assert.match(answer, /"kind":"Status"/);
  });

  it("a body past 3 MiB gets 413, one of 3 MiB reaches the agent (writes off: 403), a viewer's is refused unread", async () => {
    const post = `/clusters/member1/api/v1/namespaces/${NS}/configmaps`;
    const json = { "content-type": "application/json" };
    const over = await send(admin, "POST", post, { headers: json, body: Buffer.alloc(3 * MIB + 1, 0x20) });
    assert.equal(over.status, 413);
    assert.match(statusOf(over)?.message ?? "", /at most 3145728 bytes/);
    const exact = await send(admin, "POST", post, { headers: json, body: Buffer.alloc(3 * MIB, 0x20) });
    assert.equal(exact.status, 403);
    assert.match(statusOf(exact)?.message ?? "", /are off in member1/);
    const viewers = await send(viewer, "POST", post, { headers: json, body: Buffer.alloc(8 * MIB, 0x20) });
    assert.equal(viewers.status, 403);
    assert.match(statusOf(viewers)?.message ?? "", /vera: a viewer certificate only reads/);
    await serving();
  });

  it("headers that claim another identity are dropped: a viewer stays flotilla:viewer:vera", async () => {
    const claims: Record<string, string>[] = [
      { "impersonate-user": "system:admin" },
      { "impersonate-group": "system:masters" },
      { "impersonate-user": "system:admin", "impersonate-group": "system:masters", "impersonate-uid": "0", "impersonate-extra-scopes": "all" },
      { authorization: "Bearer not-a-token" },
      { "x-remote-user": "system:admin", "x-remote-group": "system:masters" },
      { "IMPERSONATE-USER": "flotilla:admin:alice", "x-forwarded-user": "alice" },
    ];
    for (const headers of claims) {
      const nodes = await send(viewer, "GET", "/clusters/member1/api/v1/nodes", { headers });
      assert.equal(nodes.status, 403, JSON.stringify(headers));
      assert.match(statusOf(nodes)?.message ?? "", /User "flotilla:viewer:vera" cannot list resource "nodes"/, JSON.stringify(headers));
      const secrets = await send(viewer, "GET", `/clusters/member1/api/v1/namespaces/${NS}/secrets/creds`, { headers });
      assert.equal(secrets.status, 403);
      assert.match(statusOf(secrets)?.message ?? "", /vera: a viewer certificate may not read Secrets/);
      assert.doesNotMatch(secrets.body.toString(), /s3cret|czNjcmV0/);
    }
    // An upgrade (exec) is a write: a viewer's is refused, as a Status over the raw socket.
    const exec = await send(viewer, "GET", `/clusters/member1/api/v1/namespaces/${NS}/pods/x/exec?command=id`, { headers: { connection: "Upgrade", upgrade: "SPDY/3.1" } });
    assert.equal(exec.status, 403);
    assert.match(statusOf(exec)?.message ?? "", /a viewer certificate only reads/);
    await serving();
  });

  it("a caller who reads nothing for 10 s delays neither a Work reaching member1 nor another caller; then its answers arrive whole", async () => {
    const stalled = (path: string) =>
      new Promise<IncomingMessage>((resolve, reject) => {
        const req = request({ ...admin.tls, host: admin.host, port: admin.port, path, headers: { accept: "application/json" } }, (r) => resolve(r.on("error", () => undefined)));
        req.on("error", reject).end();
      });
    const readAll = (res: IncomingMessage) =>
      new Promise<Buffer>((resolve) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c)).on("end", () => resolve(Buffer.concat(chunks)));
      });
    const list = stalled(`/clusters/member1/api/v1/namespaces/${BIG}/configmaps`);
    const watch = stalled(`/clusters/member1/api/v1/namespaces/${BIG}/configmaps?watch=1`);
    try {
      assert.equal((await list).statusCode, 200);
      assert.equal((await watch).statusCode, 200);
      const t0 = Date.now();
      // A Work while they stall: a Deployment template and its policy, until member1 has it.
      await control.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } } });
      await control.request("POST", `/apis/apps/v1/namespaces/${NS}/deployments`, { body: { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "during", namespace: NS }, spec: { replicas: 0, selector: { matchLabels: { app: "during" } }, template: { metadata: { labels: { app: "during" } }, spec: { containers: [{ name: "c", image: "nginx" }] } } } } });
      await control.request("POST", `/apis/flotilla.dev/v1alpha1/namespaces/${NS}/propagationpolicies`, { body: { apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "during", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "during" }], placement: { clusterAffinity: { clusterNames: ["member1"] } } } } });
      await eventually("the Work's Deployment in member1", () => m1.get(`/apis/apps/v1/namespaces/${NS}/deployments/during`).catch(() => undefined), () => true, 9_000);
      assert.ok(Date.now() - t0 < 10_000, "the Work reached member1 while the slow callers stalled");
      // Another caller gets the same 16 MiB list whole, and member1's marker, meanwhile.
      const other = await send(admin, "GET", `/clusters/member1/api/v1/namespaces/${BIG}/configmaps`, { headers: { accept: "application/json" } });
      assert.equal(other.status, 200);
      const bigOnes = (body: Buffer) => (JSON.parse(body.toString()) as { items: { metadata: { name: string }; data?: { v?: string } }[] }).items.filter((i) => i.metadata.name.startsWith("big-"));
      assert.equal(bigOnes(other.body).length, 20);
      await serving();
      await sleep(Math.max(0, 10_000 - (Date.now() - t0)));
      const listed = bigOnes(await readAll(await list));
      assert.equal(listed.length, 20);
      assert.ok(listed.every((i) => i.data?.v?.length === 800 * 1024));
      // The watch's backlog (20 ADDED events), then a change made now.
      const events: string[] = [];
      let pending = "";
      (await watch).on("data", (c: Buffer) => {
        pending += c.toString();
        for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
          events.push((JSON.parse(pending.slice(0, nl)) as { object: { metadata: { name: string } } }).object.metadata.name);
          pending = pending.slice(nl + 1);
        }
      });
      await m1.request("POST", `/api/v1/namespaces/${BIG}/configmaps`, { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "late", namespace: BIG } } });
      await eventually("the watch's backlog and the late change", async () => (events.includes("late") ? events : undefined), () => true, 20_000);
      assert.equal(events.filter((e) => e.startsWith("big-")).length, 20);
    } finally {
      // They leave; their places in the per-cluster limit are free again before the next test.
      const b0 = await broken();
      const left = (await Promise.all([list, watch].map((x) => x.then((r) => (r.destroy(), !r.complete), () => false)))).filter(Boolean).length;
      await eventually("the slow callers' requests ended", async () => ((await broken()) >= b0 + left ? true : undefined), () => true, 10_000);
    }
  });

  it(`callers who leave mid-answer free their place: ${LIMIT} at once, past the limit a 429, then ${LIMIT} more, again and again`, async () => {
    const path = `/clusters/member1/api/v1/namespaces/${NS}/configmaps?watch=1`;
    const openAll = async () => {
      const ws: Watch[] = Array.from({ length: LIMIT }, () => openWatch({ ...admin, base: "" }, path, () => undefined));
      await Promise.all(ws.map((w) => w.ready));
      return ws;
    };
    for (let round = 0; round < 3; round++) {
      const before = await broken();
      const ws = await openAll();
      if (round === 0) {
        const past = await send(admin, "GET", `/clusters/member1${marker}`);
        assert.equal(past.status, 429);
        assert.equal(past.headers["retry-after"], "1");
        assert.equal(statusOf(past)?.code, 429);
        // The limit is member1's: member2 is served meanwhile.
        const other = await send(admin, "GET", `/clusters/member2${marker}`);
        assert.equal(other.status, 200);
        assert.match(other.body.toString(), new RegExp(MARKER2));
      }
      for (const w of ws) w.close();
      await eventually(`round ${round}: the ${LIMIT} left watches ended`, async () => ((await broken()) >= before + LIMIT ? true : undefined), () => true, 10_000);
    }
    // One that leaves in the middle of a 16 MiB answer.
    const before = await broken();
    await new Promise<void>((resolve, reject) => {
      const req = request({ ...admin.tls, host: admin.host, port: admin.port, path: `/clusters/member1/api/v1/namespaces/${BIG}/configmaps`, headers: { accept: "application/json" } }, (res) => {
        let got = 0;
        res.on("error", () => undefined);
        res.on("data", (c: Buffer) => {
          got += c.byteLength;
          if (got > MIB) {
            req.destroy();
            resolve();
          }
        });
      });
      req.on("error", (err) => (err.message.includes("aborted") || err.message.includes("socket hang up") ? undefined : reject(err)));
      req.end();
    });
    await eventually("the abandoned list ended", async () => ((await broken()) > before ? true : undefined), () => true, 10_000);
    const last = await broken();
    for (const w of await openAll()) w.close();
    await eventually(`the last ${LIMIT} left watches ended`, async () => ((await broken()) >= last + LIMIT ? true : undefined), () => true, 10_000);
    await serving();
  });
});
