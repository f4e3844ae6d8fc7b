// What a LeaderElector observes of the Lease it competes for (whom peers/ lets follow this
// replica's reports). The Lease is served by a stub of the two requests a round makes; the
// elector against a real kube-apiserver, in and out of its thread, is test/leader-thread.test.ts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KubeError, type KubeRest } from "../../shared/kube-rest.ts";
import { silentLogger } from "../../shared/logger.ts";
import { LeaderElector } from "./leader-election.ts";
import { type LeaseObservation, type LeaseSpec, microTime } from "./lease-decision.ts";

async function until(what: string, ok: () => boolean, timeoutMs = 3_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A Lease in a stub apiserver: GET it, PUT it (no conflicts), and the namespace's POST. */
function leaseServer(spec: LeaseSpec | undefined) {
  const s = { spec, version: 1, writes: 0 };
  const rest = {
    request: async (method: string, path: string, o?: { body?: { spec?: LeaseSpec } }) => {
      if (path === "/api/v1/namespaces") return {};
      if (method === "GET") {
        if (s.spec === undefined) throw new KubeError(404, "NotFound", "not found");
        return { metadata: { resourceVersion: String(s.version) }, spec: { ...s.spec } };
      }
      s.writes++;
      s.version++;
      s.spec = o?.body?.spec;
      return {};
    },
  } as unknown as KubeRest;
  return { s, rest };
}

function elector(rest: KubeRest, observed: LeaseObservation[]) {
  return new LeaderElector({
    rest,
    namespace: "flotilla-system",
    name: "flotilla-control-plane",
    identity: "me",
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 10,
    log: silentLogger(),
    onStartedLeading: () => undefined,
    onStoppedLeading: () => undefined,
    onObserved: (o) => observed.push(o),
  });
}

describe("LeaderElector's observation of the Lease's holder", () => {
  it("sees another replica hold the Lease, until its duration after it last saw it change, and sees a hand-over", async () => {
    const { s, rest } = leaseServer({ holderIdentity: "r1", renewTime: microTime(Date.now()), leaseDurationSeconds: 20 });
    const observed: LeaseObservation[] = [];
    const e = elector(rest, observed);
    assert.equal(e.observedHolder(), undefined, "nothing read yet: nobody");
    const startedAt = Date.now();
    await e.start();
    try {
      await until("r1 seen", () => e.observedHolder() === "r1");
      const first = observed.at(-1);
      assert.equal(first?.holder, "r1");
      // The Lease's own duration counts (20 s here, not the flag's 15 s), from when this replica saw it, by its clock.
      assert.ok(first !== undefined && first.until >= startedAt + 20_000 && first.until <= Date.now() + 20_000, `until ${first?.until}`);
      assert.equal(e.observedHolder(first.until - 1), "r1");
      assert.equal(e.observedHolder(first.until), undefined, "unchanged for its duration: expired as this replica sees it");
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(observed.length, 1, "said once per change of the Lease, not every round");

      s.spec = { holderIdentity: "r2", renewTime: microTime(Date.now()), leaseDurationSeconds: 20, leaseTransitions: 1 };
      await until("r2 seen", () => e.observedHolder() === "r2");
      assert.equal(e.isLeader, false);
      assert.equal(s.writes, 0, "a live holder's Lease is never written");
    } finally {
      await e.stop();
    }
  });

  it("a released Lease: nobody holds it, until this replica takes it (then itself)", async () => {
    const { s, rest } = leaseServer({ holderIdentity: "", renewTime: microTime(Date.now()), leaseDurationSeconds: 20 });
    const observed: LeaseObservation[] = [];
    const e = elector(rest, observed);
    await e.start();
    try {
      await until("leading", () => e.isLeader);
      assert.equal(observed[0]?.holder, undefined, "released: nobody");
      await until("itself seen", () => e.observedHolder() === "me");
      assert.ok(s.writes >= 1);
    } finally {
      await e.stop();
    }
  });
});
