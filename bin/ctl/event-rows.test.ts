import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { eventRow, eventRows, type KubeEvent, lastSeen, ownedBy, relatedUids } from "./event-rows.ts";

const now = Date.parse("2026-11-30T12:00:00Z");
const ev = (uid: string, kind: string, name: string, last: string, extra: Partial<KubeEvent> = {}): KubeEvent => ({
  metadata: { uid: `e-${name}-${last}` },
  involvedObject: { kind, name, uid },
  type: "Normal",
  reason: "Scheduled",
  message: `about ${name}`,
  lastTimestamp: last,
  ...extra,
});

describe("a workload's events", () => {
  const deployment = { kind: "Deployment", metadata: { name: "web", uid: "d1" } };
  const pods = [
    { kind: "Pod", metadata: { name: "web-a", uid: "p1", ownerReferences: [{ uid: "rs1", kind: "ReplicaSet", name: "web-7d", apiVersion: "apps/v1", controller: true }] } },
    { kind: "Pod", metadata: { name: "web-b", uid: "p2", ownerReferences: [{ uid: "rs1", kind: "ReplicaSet", name: "web-7d", apiVersion: "apps/v1", controller: true }] } },
  ];

  it("are about the workload, its pods and the pods' owners", () => {
    assert.deepEqual([...relatedUids(deployment, pods)].sort(), ["d1", "p1", "p2", "rs1"]);
  });

  const owned: [string, Parameters<typeof ownedBy>[0], boolean][] = [
    ["a pod of a ReplicaSet that is the workload's", { metadata: { uid: "p9", ownerReferences: [{ uid: "rs1", kind: "ReplicaSet", name: "x", apiVersion: "apps/v1" }] } }, true],
    ["a new ReplicaSet of the Deployment", { metadata: { uid: "rs2", ownerReferences: [{ uid: "d1", kind: "Deployment", name: "web", apiVersion: "apps/v1" }] } }, true],
    ["another workload's pod", { metadata: { uid: "p7", ownerReferences: [{ uid: "rs9", kind: "ReplicaSet", name: "y", apiVersion: "apps/v1" }] } }, false],
    ["an object without owners", { metadata: { uid: "x" } }, false],
  ];
  const related = relatedUids(deployment, pods);
  for (const [name, obj, want] of owned) it(`${want ? "count" : "do not count"} ${name}`, () => assert.equal(ownedBy(obj, related), want));

  it("happened when they last did: lastTimestamp, else the series', eventTime, creation", () => {
    assert.equal(lastSeen(ev("p1", "Pod", "a", "2026-11-30T11:00:00Z")), Date.parse("2026-11-30T11:00:00Z"));
    assert.equal(lastSeen({ lastTimestamp: null, series: { lastObservedTime: "2026-11-30T11:30:00Z" }, eventTime: "2026-11-30T10:00:00Z" }), Date.parse("2026-11-30T11:30:00Z"));
    assert.equal(lastSeen({ lastTimestamp: null, eventTime: "2026-11-30T10:00:00Z" }), Date.parse("2026-11-30T10:00:00Z"));
    assert.equal(lastSeen({ metadata: { creationTimestamp: "2026-11-30T09:00:00Z" } }), Date.parse("2026-11-30T09:00:00Z"));
    assert.equal(lastSeen({}), 0);
  });

  it("read as kubectl get events, with CLUSTER first and a repeated one's count", () => {
    assert.deepEqual(eventRow("member1", ev("p1", "Pod", "web-a", "2026-11-30T11:55:00Z", { count: 3, firstTimestamp: "2026-11-30T11:00:00Z", type: "Warning", reason: "BackOff", message: "Back-off\nrestarting" }), now), [
      "member1",
      "5m (x3 over 60m)",
      "Warning",
      "BackOff",
      "pod/web-a",
      "Back-off restarting",
    ]);
  });

  it("merge across members oldest first, ties by cluster", () => {
    const rows = eventRows(
      [
        { cluster: "member2", events: [ev("p3", "Pod", "web-c", "2026-11-30T11:58:00Z"), ev("d1", "Deployment", "web", "2026-11-30T11:50:00Z")] },
        { cluster: "member1", events: [ev("p1", "Pod", "web-a", "2026-11-30T11:58:00Z"), ev("d1", "Deployment", "web", "2026-11-30T11:59:00Z")] },
      ],
      now,
    );
    assert.deepEqual(rows.map((r) => `${r[0]} ${r[1]} ${r[4]}`), ["member2 10m deployment/web", "member1 2m pod/web-a", "member2 2m pod/web-c", "member1 60s deployment/web"]);
  });
});
