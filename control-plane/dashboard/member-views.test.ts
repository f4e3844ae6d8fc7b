import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CoreEvent } from "../../shared/api/core-event.ts";
import type { LabelSelector } from "../../shared/api/types.ts";
import { eventRows, eventSubjects, logPath, type MemberPod, memberQuery, podDetail, podRow, refusalLine, selectorQuery, workloadPath } from "./member-views.ts";

describe("memberQuery", () => {
  const q = (s: string) => new URLSearchParams(s);
  const cases: [string, URLSearchParams, unknown][] = [
    ["all good", q("cluster=eu.member-1&namespace=demo&pod=web-7d9f-abc"), { cluster: "eu.member-1", namespace: "demo", pod: "web-7d9f-abc" }],
    ["a missing field", q("cluster=m1&namespace=demo"), { error: 'pod: "" is not a pod name (a DNS subdomain)' }],
    ["an upper-case cluster", q("cluster=Member1&namespace=demo&pod=p"), { error: 'cluster: "Member1" is not a cluster name (a DNS subdomain)' }],
    ["a namespace with a dot", q("cluster=m1&namespace=a.b&pod=p"), { error: 'namespace: "a.b" is not a namespace (a DNS label)' }],
    ["a traversal", q("cluster=m1&namespace=demo&pod=../secrets"), { error: 'pod: "../secrets" is not a pod name (a DNS subdomain)' }],
    ["a slash", q("cluster=m1&namespace=demo&pod=a/b"), { error: 'pod: "a/b" is not a pod name (a DNS subdomain)' }],
    ["a query in a name", q("cluster=m1&namespace=demo&pod=p%3Fx%3D1"), { error: 'pod: "p?x=1" is not a pod name (a DNS subdomain)' }],
    ["a name too long", q(`cluster=m1&namespace=demo&pod=${"a".repeat(254)}`), { error: `pod: "${"a".repeat(64)}" is not a pod name (a DNS subdomain)` }],
  ];
  for (const [name, query, want] of cases) it(name, () => assert.deepEqual(memberQuery(query, ["cluster", "namespace", "pod"]), want));

  it("an optional field may be absent, and is checked when present", () => {
    assert.deepEqual(memberQuery(q("cluster=m1&namespace=d&pod=p"), ["cluster", "namespace", "pod"], ["container"]), { cluster: "m1", namespace: "d", pod: "p" });
    assert.deepEqual(memberQuery(q("cluster=m1&namespace=d&pod=p&container=Web"), ["cluster", "namespace", "pod"], ["container"]), { error: 'container: "Web" is not a container name (a DNS label)' });
    assert.deepEqual(memberQuery(q("apiVersion=apps/v1&kind=Deployment"), ["apiVersion", "kind"]), { apiVersion: "apps/v1", kind: "Deployment" });
    assert.ok("error" in memberQuery(q("apiVersion=apps/../v1&kind=Deployment"), ["apiVersion", "kind"]));
  });
});

describe("workloadPath", () => {
  const cases: [string, string, string | undefined][] = [
    ["apps/v1", "Deployment", "/apis/apps/v1/namespaces/demo/deployments/web"],
    ["apps/v1", "StatefulSet", "/apis/apps/v1/namespaces/demo/statefulsets/web"],
    ["apps/v1", "DaemonSet", "/apis/apps/v1/namespaces/demo/daemonsets/web"],
    ["batch/v1", "Job", "/apis/batch/v1/namespaces/demo/jobs/web"],
    ["v1", "ConfigMap", undefined],
    ["v1", "Secret", undefined],
    ["example.com/v1", "Deployment", undefined],
  ];
  for (const [apiVersion, kind, want] of cases) it(`${apiVersion} ${kind}`, () => assert.equal(workloadPath({ apiVersion, kind, namespace: "demo", name: "web" }), want));
});

describe("selectorQuery", () => {
  const cases: [string, LabelSelector | undefined, string | undefined][] = [
    ["labels", { matchLabels: { app: "web", "app.kubernetes.io/part-of": "shop" } }, "app=web,app.kubernetes.io/part-of=shop"],
    ["expressions", { matchExpressions: [{ key: "tier", operator: "In", values: ["a", "b"] }, { key: "x", operator: "NotIn", values: ["c"] }, { key: "y", operator: "Exists" }, { key: "z", operator: "DoesNotExist" }] }, "tier in (a,b),x notin (c),y,!z"],
    ["none", undefined, undefined],
    ["empty: it would list every pod", {}, undefined],
    ["an operator the apiserver does not take", { matchExpressions: [{ key: "n", operator: "Gt", values: ["1"] }] }, undefined],
  ];
  for (const [name, s, want] of cases) it(name, () => assert.equal(selectorQuery(s), want));
});

const pod = (name: string, extra: Partial<MemberPod> = {}): MemberPod => ({
  metadata: { name, namespace: "demo", creationTimestamp: "2026-12-01T10:00:00Z", ownerReferences: [{ kind: "ReplicaSet", name: "web-7d9f" }] },
  spec: { nodeName: "node-1", containers: [{ name: "app", image: "nginx" }, { name: "sidecar", image: "envoy" }] },
  status: {
    phase: "Running",
    containerStatuses: [
      { name: "app", ready: true, restartCount: 2, state: { running: { startedAt: "2026-12-01T10:00:05Z" } } },
      { name: "sidecar", ready: false, restartCount: 1, state: { waiting: { reason: "CrashLoopBackOff" } } },
    ],
  },
  ...extra,
});

describe("podRow", () => {
  const cases: [string, MemberPod, Partial<ReturnType<typeof podRow>>][] = [
    ["a container's waiting reason says more than the phase", pod("a"), { phase: "CrashLoopBackOff", ready: "1/2", restarts: 3, node: "node-1", created: "2026-12-01T10:00:00Z" }],
    ["running and ready", pod("b", { status: { phase: "Running", containerStatuses: [{ name: "app", ready: true }, { name: "sidecar", ready: true }] } }), { phase: "Running", ready: "2/2", restarts: 0 }],
    ["being deleted", pod("c", { metadata: { name: "c", deletionTimestamp: "2026-12-01T11:00:00Z" } }), { phase: "Terminating" }],
    ["not scheduled yet", { metadata: { name: "d" }, spec: { containers: [{ name: "app" }] }, status: { phase: "Pending" } }, { phase: "Pending", ready: "0/1", node: "" }],
    ["completed containers are not a problem", pod("e", { status: { phase: "Succeeded", containerStatuses: [{ name: "app", state: { terminated: { reason: "Completed", exitCode: 0 } } }] } }), { phase: "Succeeded" }],
  ];
  for (const [name, p, want] of cases) it(name, () => assert.deepEqual({ ...podRow(p), ...want }, podRow(p)));
});

describe("podDetail", () => {
  it("lists each container with its state", () => {
    assert.deepEqual(podDetail(pod("a")).containers, [
      { name: "app", image: "nginx", ready: true, restarts: 2, state: "Running" },
      { name: "sidecar", image: "envoy", ready: false, restarts: 1, state: "CrashLoopBackOff" },
    ]);
  });
});

describe("eventRows", () => {
  const ev = (kind: string, name: string, reason: string, last: string, extra: Partial<CoreEvent> = {}): CoreEvent => ({ metadata: { name: `${name}.1` }, involvedObject: { kind, name }, type: "Normal", reason, message: `${reason} happened`, count: 1, lastTimestamp: last, ...extra });
  const events = [
    ev("Deployment", "web", "ScalingReplicaSet", "2026-12-01T10:00:00Z"),
    ev("ReplicaSet", "web-7d9f", "SuccessfulCreate", "2026-12-01T10:00:01Z"),
    ev("Pod", "a", "BackOff", "2026-12-01T10:05:00Z", { type: "Warning", count: 7 }),
    ev("Pod", "other", "Pulled", "2026-12-01T10:06:00Z"),
    ev("Deployment", "other", "ScalingReplicaSet", "2026-12-01T10:07:00Z"),
    ev("Pod", "a", "Scheduled", "", { eventTime: "2026-12-01T09:59:59.000000Z", lastTimestamp: undefined }),
  ];
  const about = eventSubjects({ kind: "Deployment", name: "web" }, [pod("a")]);

  it("keeps the workload's, its pods' and their owners' events, newest first", () => {
    assert.deepEqual(
      eventRows(events, about).map((e) => `${e.object} ${e.reason} ${e.type} ${e.count}`),
      ["Pod a BackOff Warning 7", "ReplicaSet web-7d9f SuccessfulCreate Normal 1", "Deployment web ScalingReplicaSet Normal 1", "Pod a Scheduled Normal 1"],
    );
  });
  it("shows at most the newest `limit`", () => assert.deepEqual(eventRows(events, about, 1).map((e) => e.reason), ["BackOff"]));
  it("a workload without pods: its own events only", () => assert.deepEqual(eventRows(events, eventSubjects({ kind: "Deployment", name: "web" }, [])).map((e) => e.reason), ["ScalingReplicaSet"]));
});

describe("logPath", () => {
  it("follows from the last lines, of the container asked for", () => {
    assert.equal(logPath("demo", "web-1", "app"), "/api/v1/namespaces/demo/pods/web-1/log?follow=true&tailLines=200&container=app");
    assert.equal(logPath("demo", "web-1", undefined, 10), "/api/v1/namespaces/demo/pods/web-1/log?follow=true&tailLines=10");
  });
});

describe("refusalLine", () => {
  const status = (message: string) => JSON.stringify({ kind: "Status", message });
  const cases: [string, number, string, string][] = [
    ["a refusal names the member and says its words", 403, status('pods is forbidden: User "flotilla:viewer:vera" cannot list resource "pods"'), 'm1 refused: pods is forbidden: User "flotilla:viewer:vera" cannot list resource "pods"'],
    ["not found", 404, status('deployments.apps "web" not found'), 'not found in m1: deployments.apps "web" not found'],
    ["no answer", 503, status("the agent's stream is not open"), "m1 did not answer (503): the agent's stream is not open"],
    ["not JSON", 502, "bad gateway", "m1 did not answer (502): bad gateway"],
    ["nothing said", 500, "", "m1 did not answer (500)"],
  ];
  for (const [name, code, body, want] of cases) it(name, () => assert.equal(refusalLine("m1", code, body), want));
});
