import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { errorOf, fanOut } from "./member-api.ts";

describe("an error answer of the member API", () => {
  const cases: { name: string; status: number; body: string; message: string }[] = [
    {
      name: "is the member's Status message (RBAC)",
      status: 403,
      body: JSON.stringify({ kind: "Status", status: "Failure", reason: "Forbidden", code: 403, message: 'pods is forbidden: User "flotilla:viewer:vera" cannot list resource "pods"' }),
      message: 'pods is forbidden: User "flotilla:viewer:vera" cannot list resource "pods"',
    },
    { name: "is the control plane's Status message (no agent)", status: 503, body: JSON.stringify({ kind: "Status", reason: "ServiceUnavailable", message: "the agent of member2 is not connected" }), message: "the agent of member2 is not connected" },
    { name: "is the HTTP code and the start of a body that is no Status", status: 502, body: "bad gateway\n", message: "GET /api/v1/pods: HTTP 502: bad gateway" },
    { name: "is the HTTP code alone for an empty body", status: 503, body: "", message: "GET /api/v1/pods: HTTP 503" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const err = errorOf(c.status, c.body, "/api/v1/pods");
      assert.equal(err.status, c.status);
      assert.equal(err.message, c.message);
    });
  }
});

describe("reading every member", () => {
  const read = (failing: string[]) => (cluster: string) => (failing.includes(cluster) ? Promise.reject(new Error(`${cluster} is down`)) : Promise.resolve(cluster.toUpperCase()));

  it("gives the answers in the clusters' order and a line on stderr for each that failed", async () => {
    const lines: string[] = [];
    const got = await fanOut(["m1", "m2", "m3"], read(["m2"]), (s) => lines.push(s));
    assert.deepEqual(got, [{ key: "m1", value: "M1" }, { key: "m3", value: "M3" }]);
    assert.deepEqual(lines, ["cluster m2: m2 is down"]);
  });

  it("fails when every member failed, each said on stderr", async () => {
    const lines: string[] = [];
    await assert.rejects(fanOut(["m1", "m2"], read(["m1", "m2"]), (s) => lines.push(s)), /every one of the 2 clusters failed/);
    assert.deepEqual(lines.sort(), ["cluster m1: m1 is down", "cluster m2: m2 is down"]);
  });

  it("fails with the one member's message when that was the only one", async () => {
    const lines: string[] = [];
    await assert.rejects(fanOut(["m1"], read(["m1"]), (s) => lines.push(s)), /^Error: cluster m1: m1 is down$/);
    assert.deepEqual(lines, []);
  });

  it("names other keys as told", async () => {
    const lines: string[] = [];
    const streams = [{ pod: "a" }, { pod: "b" }];
    await assert.rejects(fanOut(streams, (s) => Promise.reject(new Error(`${s.pod} gone`)), (l) => lines.push(l), { label: (s) => `pod ${s.pod}`, noun: "log streams" }), /every one of the 2 log streams failed/);
    assert.deepEqual(lines.sort(), ["pod a: a gone", "pod b: b gone"]);
  });

  it("reads at most 16 members at once", async () => {
    let now = 0;
    let most = 0;
    const clusters = Array.from({ length: 40 }, (_, i) => `m${i}`);
    await fanOut(
      clusters,
      async () => {
        most = Math.max(most, ++now);
        await new Promise((r) => setTimeout(r, 1));
        now--;
      },
      () => {},
    );
    assert.equal(most, 16);
  });
});
