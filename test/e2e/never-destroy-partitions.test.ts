// DESIGN §11 on real clusters: partitions of every agent and of one never delete or replace what
// runs in a member. Kills and restarts: never-destroy-restarts.test.ts; a failed apply:
// never-destroy.test.ts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EVICTION_RECHECK_MS } from "../../control-plane/scheduling/graceful-eviction.ts";
import { keepFleet, sharedDivided } from "./never-destroy.fixtures.ts";
import { type BindingJson, eventually } from "./helpers.ts";

/** Outlasts two of the scheduler's rechecks of a pending graceful eviction (5 s each): any eviction it would make is made by then. */
const TWO_EVICTION_RECHECKS_MS = 2 * EVICTION_RECHECK_MS + 2_000;

describe("never destroy what runs: partitions", () => {
  const h = keepFleet();

  it("a Divided workload keeps every member's object through a partition of all agents, then of one agent", async () => {
    const { split, sameObjects, ready } = await sharedDivided(h);
    const agents = () => ["member1", "member2"].map((m) => h.flotilla.agents.get(m)?.process).filter((p) => p !== undefined);
    const streams = async () => (await h.flotilla.controlPlaneMetrics()).flotilla_connected_agents ?? 0;

    // 1. Every agent partitioned: both clusters go NotReady, the hub closes both streams (keepalive),
    // and the binding keeps its placement.
    for (const p of agents()) p.pause();
    try {
      await eventually("both NotReady", async () => [await ready("member1"), await ready("member2")], (r) => r.every((c) => c?.status === "False"), 30_000);
      await eventually("the hub closed both agents' streams", streams, (n) => n === 0, 30_000);
      await new Promise((r) => setTimeout(r, TWO_EVICTION_RECHECKS_MS));
      // The agents stop a moment apart: the first cluster to go NotReady had its share added on
      // the other first. Once none is Ready, that last placement is kept: nobody loses a copy.
      const b = await h.binding("shared");
      const replicas = new Map((b?.spec.clusters ?? []).map((c) => [c.name, c.replicas ?? 0]));
      assert.ok((replicas.get("member1") ?? 0) >= 2 && (replicas.get("member2") ?? 0) >= 2, `no Ready cluster: both keep their copies (${b === undefined ? "no binding" : split(b)})`);
      const scheduled = b?.status?.conditions?.find((c) => c.type === "Scheduled");
      assert.equal(scheduled?.status, "False");
      assert.match(scheduled?.message ?? "", /none Ready; the clusters keep what they run/);
    } finally {
      for (const p of agents()) p.resume();
    }
    await eventually("both Ready again", async () => [await ready("member1"), await ready("member2")], (r) => r.every((c) => c?.status === "True"), 60_000);
    await eventually("2/2 without evictions", () => h.binding("shared"), (b) => split(b) === "member1=2 member2=2" && (b.spec as { gracefulEvictionTasks?: unknown[] }).gracefulEvictionTasks === undefined);
    await sameObjects("after all agents were partitioned");

    // 2. One agent partitioned: its share is added on member1 first; member2 keeps its copy.
    const member2 = h.flotilla.agents.get("member2")?.process;
    member2?.pause();
    try {
      const b = await eventually("member1 takes 4, member2 holds 2", () => h.binding("shared"), (x) => split(x) === "member1=4 member2=2", 30_000);
      assert.deepEqual((b.spec as { gracefulEvictionTasks?: { fromCluster: string }[] }).gracefulEvictionTasks?.map((t) => t.fromCluster), ["member2"]);
      await eventually("member1 runs 4", () => h.deploy(h.m1, "shared"), (d) => d.spec.replicas === 4);
      await eventually("the hub closed member2's stream", streams, (n) => n === 1, 30_000);
      await new Promise((r) => setTimeout(r, TWO_EVICTION_RECHECKS_MS));
      assert.equal(split((await h.binding("shared")) as BindingJson), "member1=4 member2=2", "member2 is still held: the eviction period is not over");
    } finally {
      member2?.resume();
    }
    await eventually("2/2 again", () => h.binding("shared"), (b) => split(b) === "member1=2 member2=2" && (b.spec as { gracefulEvictionTasks?: unknown[] }).gracefulEvictionTasks === undefined, 60_000);
    await eventually("member1 back to 2", () => h.deploy(h.m1, "shared"), (d) => d.spec.replicas === 2);
    await sameObjects("after one agent was partitioned");
  });
});
