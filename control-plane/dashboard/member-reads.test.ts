// The dashboard's reads inside a member, over a fake carrier that answers as a member's apiserver
// would (the real agent and apiserver: test/e2e/dashboard-member.test.ts). Each read goes as the
// signed-in user; a refusal, a kind without pods, a missing agent or the member API off each give
// the line the page shows; bad names are refused before anything is sent. The carrier is the member
// API's exchange over a fake agent's stream.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { exchange, type MemberRequests } from "../member-api/member-api-exchange.ts";
import { DashboardError } from "./dashboard-server.ts";
import { MemberReads } from "./member-reads.ts";

type Answer = { status: number; body: unknown };
type MemberApiCall = Parameters<MemberRequests["requestMember"]>[0];
type MemberApiSink = Parameters<MemberRequests["requestMember"]>[1];

/** A member's apiserver as the carrier delivers it: an answer per path (without its query). */
function fakeMember(answers: Record<string, Answer>): MemberRequests & { calls: MemberApiCall[] } {
  const calls: MemberApiCall[] = [];
  return {
    calls,
    requestMember(call: MemberApiCall, sink: MemberApiSink) {
      calls.push(call);
      const a = answers[call.path.split("?")[0] as string] ?? { status: 404, body: { kind: "Status", message: `${call.path} not found` } };
      setImmediate(() => {
        sink.head(a.status, { "content-type": "application/json" });
        sink.data(Buffer.from(JSON.stringify(a.body)));
        sink.end();
      });
      return { consumed: () => undefined, cancel: () => undefined, send: (data: Buffer) => data.byteLength };
    },
  };
}

const DEPLOY = "/apis/apps/v1/namespaces/demo/deployments/web";
const PODS = "/api/v1/namespaces/demo/pods";
const EVENTS = "/api/v1/namespaces/demo/events";
const pod = (name: string) => ({ metadata: { name, creationTimestamp: "2026-12-01T10:00:00Z", ownerReferences: [{ kind: "ReplicaSet", name: "web-1" }] }, spec: { nodeName: "n1", containers: [{ name: "app" }] }, status: { phase: "Running", containerStatuses: [{ name: "app", ready: true, restartCount: 0 }] } });
const event = (kind: string, name: string, reason: string) => ({ metadata: { name: `${name}.x` }, involvedObject: { kind, name }, type: "Normal", reason, message: reason, count: 1, lastTimestamp: "2026-12-01T10:00:00Z" });
const healthy: Record<string, Answer> = {
  [DEPLOY]: { status: 200, body: { spec: { selector: { matchLabels: { app: "web" } } } } },
  [PODS]: { status: 200, body: { items: [pod("web-1-b"), pod("web-1-a")], metadata: {} } },
  [EVENTS]: { status: 200, body: { items: [event("Deployment", "web", "ScalingReplicaSet"), event("Pod", "web-1-a", "Scheduled"), event("Pod", "db-0", "Scheduled")], metadata: {} } },
};
const vera = { user: "vera", role: "viewer" as const };
const q = (s: string) => new URLSearchParams(s);
const WEB = "cluster=m1&apiVersion=apps%2Fv1&kind=Deployment&namespace=demo&name=web";
/** m1's agent streams here; m2's nowhere this replica can reach. */
const reads = (member: MemberRequests, enabled = true) =>
  new MemberReads({ carry: enabled ? async (c, call, out, ms) => (c === "m1" ? exchange(member, call, out, ms, c) : undefined) : undefined, known: (c) => c === "m1" || c === "m2" });

describe("MemberReads.workload", () => {
  it("lists the pods the workload's selector names and the events about it and them, read as the signed-in user", async () => {
    const member = fakeMember(healthy);
    const got = await reads(member).workload(q(WEB), vera);
    assert.deepEqual(got.pods.map((p) => `${p.name} ${p.phase} ${p.ready} ${p.node}`), ["web-1-a Running 1/1 n1", "web-1-b Running 1/1 n1"]);
    assert.deepEqual(got.events.map((e) => `${e.object} ${e.reason}`).sort(), ["Deployment web ScalingReplicaSet", "Pod web-1-a Scheduled"]);
    assert.equal(got.problem ?? got.podsProblem ?? got.eventsProblem, undefined);
    assert.ok(member.calls.every((c) => c.method === "GET" && c.user === "vera" && c.role === "viewer"), "every read is a GET as vera, a viewer");
    assert.ok(member.calls.some((c) => c.path === `${PODS}?labelSelector=app%3Dweb&limit=500`));
  });

  it("a member that refuses the pods says so, and its events still show", async () => {
    const member = fakeMember({ ...healthy, [PODS]: { status: 403, body: { kind: "Status", message: 'pods is forbidden: User "flotilla:viewer:vera" cannot list resource "pods"' } } });
    const got = await reads(member).workload(q(WEB), vera);
    assert.equal(got.podsProblem, 'm1 refused: pods is forbidden: User "flotilla:viewer:vera" cannot list resource "pods"');
    assert.equal(got.events.length, 1);
  });

  it("a kind without pods lists none and reads no object; the workload not in the member says so", async () => {
    const member = fakeMember(healthy);
    const cm = await reads(member).workload(q("cluster=m1&apiVersion=v1&kind=ConfigMap&namespace=demo&name=web"), vera);
    assert.match(cm.podsProblem ?? "", /^a ConfigMap names no pods/);
    assert.deepEqual(member.calls.map((c) => c.path.split("?")[0]), [EVENTS]);
    const gone = await reads(fakeMember({ [EVENTS]: healthy[EVENTS] as Answer })).workload(q(WEB), vera);
    assert.match(gone.podsProblem ?? "", /^not found in m1/);
  });

  it("an agent not connected here, or the member API off, gives one line and sends nothing", async () => {
    assert.deepEqual(await reads(fakeMember(healthy)).workload(q(WEB.replace("m1", "m2")), vera), { cluster: "m2", pods: [], events: [], truncated: false, problem: "the agent of m2 is not connected to the control plane (to this replica, or one this replica can reach): its pods and events cannot be read now" });
    const member = fakeMember(healthy);
    assert.match((await reads(member, false).workload(q(WEB), vera)).problem ?? "", /member API \(--member-api-address\)/);
    assert.equal(member.calls.length, 0);
  });

  it("a bad name is a 400 and an unknown cluster a 404, before anything is sent", async () => {
    const member = fakeMember(healthy);
    const status = (p: Promise<unknown>) => p.then(() => 0, (e: unknown) => (e instanceof DashboardError ? e.status : -1));
    assert.equal(await status(reads(member).workload(q(WEB.replace("name=web", "name=..%2Fsecrets")), vera)), 400);
    assert.equal(await status(reads(member).workload(q(WEB.replace("m1", "m3")), vera)), 404);
    assert.equal(await status(reads(member).pod(q("cluster=m1&namespace=demo&pod=a%20b"), vera)), 400);
    assert.equal(member.calls.length, 0);
  });
});

describe("MemberReads.pod", () => {
  it("shows one pod's containers, or the member's refusal", async () => {
    const member = fakeMember({ [`${PODS}/web-1-a`]: { status: 200, body: pod("web-1-a") } });
    const got = await reads(member).pod(q("cluster=m1&namespace=demo&pod=web-1-a"), vera);
    assert.deepEqual(got.pod?.containers, [{ name: "app", image: "", ready: true, restarts: 0, state: "Unknown" }]);
    const refused = await reads(fakeMember({ [`${PODS}/web-1-a`]: { status: 403, body: { message: "forbidden" } } })).pod(q("cluster=m1&namespace=demo&pod=web-1-a"), vera);
    assert.deepEqual(refused, { cluster: "m1", problem: "m1 refused: forbidden" });
  });
});
