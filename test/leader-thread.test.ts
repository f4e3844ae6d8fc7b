// Issue 25: the leader's Lease renewals do not wait behind work on the main thread (a reconnect
// storm of thousands of agents), against a real kube-apiserver.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { KubeRest } from "../shared/kube-rest.ts";
import { silentLogger } from "../shared/logger.ts";
import { LeaderElector } from "../control-plane/leadership/leader-election.ts";
import { ThreadedLeaderElector } from "../control-plane/leadership/lease-thread.ts";
import { type Cluster, startCluster } from "./env/cluster.ts";
import { waitFor } from "./env/wait.ts";

/** Short timings, so that a few seconds of blocked main thread pass the renew deadline. */
const timings = { leaseDurationMs: 4000, renewDeadlineMs: 2500, retryPeriodMs: 300 };
const blockMs = 5000;

/** What a storm does to the main thread, at its worst: nothing else runs for a while. */
function busy(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    /* spin */
  }
}

interface Lease {
  spec?: { holderIdentity?: string; renewTime?: string; leaseTransitions?: number };
}

describe("leader election under a busy main thread", () => {
  let dir = "";
  let control: Cluster;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "flotilla-leader-thread-"));
    control = await startCluster({ name: "control", role: "control", dir: join(dir, "control") });
  });
  after(async () => {
    await control?.stop();
    if (dir !== "") await rm(dir, { recursive: true, force: true });
  });

  /** An elector in its own thread, for Lease `name`. */
  const threaded = (name: string, identity: string, onStoppedLeading: () => void = () => undefined) =>
    new ThreadedLeaderElector({ kc: control.kubeConfig(), userAgent: "test", election: { name, namespace: "flotilla-system", identity, ...timings }, log: silentLogger(), onStartedLeading: () => undefined, onStoppedLeading });

  const leaseOf = (name: string) => new KubeRest(control.kubeConfig()).get<Lease>(`/apis/coordination.k8s.io/v1/namespaces/flotilla-system/leases/${name}`);

  it("in its own thread, the leader renews its Lease while the main thread is blocked past the renew deadline, and may still write", async () => {
    let stopped = 0;
    const elector = threaded("threaded", "threaded-1", () => stopped++);
    try {
      await elector.start();
      await waitFor(async () => elector.isLeader, { what: "the threaded elector to lead", timeoutMs: 20_000, intervalMs: 50 });
      const blockedAt = Date.now();
      busy(blockMs);
      // Read before anything else of this thread runs: the fence is what a controller's write would see.
      assert.equal(elector.writeFence(), undefined, "writes are not fenced: the lease was renewed meanwhile");
      const lease = await leaseOf("threaded");
      assert.equal(lease.spec?.holderIdentity, "threaded-1");
      assert.ok(Date.parse(lease.spec?.renewTime ?? "") > blockedAt + blockMs - 2 * timings.retryPeriodMs, `renewed during the block (renewTime ${lease.spec?.renewTime}, block ${new Date(blockedAt).toISOString()} + ${blockMs} ms)`);
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(stopped, 0, "never stepped down");
      assert.ok(elector.isLeader);
    } finally {
      await elector.stop();
    }
    assert.equal((await leaseOf("threaded")).spec?.holderIdentity, "", "released on stop");
  });

  it("each elector, in its thread or not, sees who holds the Lease (whom peers/ lets follow): the other replica, then itself once the other released it", async () => {
    const rest = new KubeRest(control.kubeConfig(), { maxSockets: 2 });
    const first = new LeaderElector({ rest, name: "observed", namespace: "flotilla-system", identity: "main-3", ...timings, log: silentLogger(), onStartedLeading: () => undefined, onStoppedLeading: () => undefined });
    const second = threaded("observed", "threaded-3");
    try {
      await first.start();
      await waitFor(async () => first.isLeader, { what: "the first elector to lead", timeoutMs: 20_000, intervalMs: 50 });
      assert.equal(second.observedHolder(), undefined, "the thread has read nothing yet");
      await second.start();
      await waitFor(async () => second.observedHolder() === "main-3", { what: "the threaded elector to see main-3 hold the Lease", timeoutMs: 10_000, intervalMs: 50 });
      await waitFor(async () => first.observedHolder() === "main-3", { what: "the leader to see itself hold it", timeoutMs: 10_000, intervalMs: 50 });
      assert.equal(second.observedHolder(Date.now() + timings.leaseDurationMs + 1), undefined, "unrenewed for its duration, it would be expired as the thread sees it");
      await first.stop();
      await waitFor(async () => second.isLeader, { what: "the threaded elector to take the released Lease", timeoutMs: 10_000, intervalMs: 50 });
      await waitFor(async () => second.observedHolder() === "threaded-3", { what: "the threaded elector to see itself hold it", timeoutMs: 10_000, intervalMs: 50 });
    } finally {
      await second.stop();
      await first.stop();
      rest.close();
    }
  });

  it("on the main thread (--leader-elect-thread=false), the same block fences the leader's writes and it steps down", async () => {
    let stopped = 0;
    const rest = new KubeRest(control.kubeConfig(), { maxSockets: 2 });
    const e = new LeaderElector({
      rest,
      name: "main-thread",
      namespace: "flotilla-system",
      identity: "main-1",
      ...timings,
      log: silentLogger(),
      onStartedLeading: () => undefined,
      onStoppedLeading: () => stopped++,
    });
    try {
      await e.start();
      await waitFor(async () => e.isLeader, { what: "the elector to lead", timeoutMs: 20_000, intervalMs: 50 });
      busy(blockMs);
      assert.match(e.writeFence() ?? "", /missed its renew deadline/);
      await waitFor(async () => stopped === 1, { what: "the elector to step down", timeoutMs: 10_000, intervalMs: 50 });
    } finally {
      await e.stop();
      rest.close();
    }
  });
});
