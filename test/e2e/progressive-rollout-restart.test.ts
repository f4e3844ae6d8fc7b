// Issue 23 on 3 members: a control plane killed mid-rollout resumes where it was, same revision,
// no cluster jumping ahead (the other rollout cases: progressive-rollout.test.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { apply, deploymentJson, sleep } from "./helpers.ts";
import { MEMBERS, NS, rolloutHarness, SLACK_MS, webPolicy } from "./progressive-rollout.fixtures.ts";

describe("progressive rollout across a control-plane restart (issue 23)", () => {
  const h = rolloutHarness();
  const { memberImage, runsHealthy, record, stopRecording, state, entry, describeState, until, untilState, untilBindingStrategy, untilRolloutCondition, succeededAt } = h;

  it("the first revision is Succeeded on every cluster at once", h.firstRevisionSucceeds);

  it("a control plane killed mid-rollout resumes where it was: same revision, no cluster jumping ahead", async (t) => {
    // Long enough that the restarted control plane is back, its agents connected, well within it:
    // they were back 11.6 s after member1 began soaking alone, and 21.1 s in a full run, which failed
    // a soak of 22 s: the agents' reconnect backoff had grown to tens of seconds while the control
    // plane was down. Test agents now back off at most 2 s (--max-reconnect-backoff, test/env/flotilla.ts),
    // and full runs saw them back 10.2, 10.0 and 9.0 s into the soak: 20 s leaves 7 s to spare
    // (the assertion below wants 3 s of soak left). Each group soaks it, so it is twice in the file's time.
    const soakS = 20;
    await apply(h.control, webPolicy({ soakS }));
    await untilBindingStrategy("web-deployment", (r) => r.minSuccessTime === `${soakS}s`);
    const prev = await state("web-deployment");
    assert.ok(prev);
    const old2 = await memberImage("member2");
    const old3 = await memberImage("member3");
    assert.ok(old2 && old3);
    const rec2 = record(() => memberImage("member2"));
    const rec3 = record(() => memberImage("member3"));
    await apply(h.control, deploymentJson("web", NS, 1, "nginx:4"));

    const soaking = await untilState("member1 Soaking at nginx:4's revision", "web-deployment", (s) => s.revision !== prev.revision && entry(s, "member1")?.phase === "Soaking", 90_000);
    const r4 = soaking.revision;
    const soakSince = Date.parse(entry(soaking, "member1")?.since ?? "");
    assert.ok(Number.isFinite(soakSince));

    // kill -9 the only replica mid-soak, and start it again in place.
    await h.flotilla.controlPlane.kill();
    await sleep(2_000);
    assert.equal(await memberImage("member2"), old2, "nothing moved while the control plane was down");
    await h.flotilla.startControlPlane();
    await until("the 3 agents connected to the restarted control plane", () => h.flotilla.controlPlaneMetrics(), (m) => m.flotilla_connected_agents === 3, { timeoutMs: 60_000 });
    // What the restarted leader does once it has looked (a reconcile of the binding after the restart).
    await sleep(2_000);
    const backMs = Date.now() - soakSince;
    t.diagnostic(`the control plane and its agents were back ${backMs} ms into member1's ${soakS}s soak`);
    assert.ok(backMs < (soakS - 3) * 1000, `the control plane and its agents were back ${backMs} ms into member1's ${soakS}s soak: too late to see whether it resumes mid-soak`);

    const resumed = await state("web-deployment");
    assert.equal(resumed?.revision, r4, "the same rollout after the restart");
    assert.equal(entry(resumed, "member1")?.phase, "Soaking", `member1 still soaking, not started again: ${describeState(resumed)}`);
    assert.equal(Date.parse(entry(resumed, "member1")?.since ?? ""), soakSince, "member1's soak goes on from when it began");
    for (const m of ["member2", "member3"]) {
      assert.equal(entry(resumed, m)?.revision, prev.revision, `${m} is still told the old revision`);
      assert.equal(entry(resumed, m)?.phase, "Waiting", `${m} still waits`);
    }
    assert.equal(await memberImage("member2"), old2, "member2 did not jump ahead at the restart");
    assert.equal(await memberImage("member3"), old3, "member3 did not jump ahead at the restart");

    await untilState("the rollout of nginx:4 Succeeded", "web-deployment", succeededAt(r4), 120_000);
    for (const m of MEMBERS) await until(`${m} runs nginx:4 Available`, () => runsHealthy(m, "nginx:4"), (ok) => ok);
    for (const [m, rec] of [["member2", rec2], ["member3", rec3]] as const) {
      const seen = await stopRecording(rec);
      assert.deepEqual([...seen.keys()], [m === "member2" ? old2 : old3, "nginx:4"], `${m} went from the old image to nginx:4 only`);
      const at = seen.get("nginx:4") ?? 0;
      assert.ok(at >= soakSince + soakS * 1000 - SLACK_MS, `${m} got nginx:4 ${at - soakSince} ms after member1 began soaking, before minSuccessTime (${soakS}s)`);
    }
    await untilRolloutCondition("True", "Succeeded");
  });
});
