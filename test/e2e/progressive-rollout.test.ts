// Issue 23 on 3 members: a template change reaches the fleet in waves, group canary [member1]
// first, then rest-of-fleet [member2, member3], each cluster soaking minSuccessTime healthy before
// the next group starts. A bad image (its pods never become Ready: test/env's kwok leaves
// NEVER_READY_IMAGE Pending) fails in canary after progressDeadline and is rolled back there,
// member2 and member3 never seeing it (and the template changed back to the good image is the
// stable revision again, done at once); a BeforeGroup approval holds the second group until
// `flotillactl rollout approve`; a ConfigMap goes in the same waves; a control plane killed
// mid-rollout resumes where it was, with no cluster jumping ahead. The state is the binding's
// status.rollout, its Rollout condition and Events on the template.
// The approval and ConfigMap cases are in progressive-rollout-approval.test.ts and the control-plane
// kill in progressive-rollout-restart.test.ts (each its own fleet: a file each stays within the
// suite's per-file budget, also two files at once).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AppsV1Api } from "@kubernetes/client-node";
import { NEVER_READY_IMAGE } from "../env/kwok.ts";
import { apply, deploymentJson, kubectl } from "./helpers.ts";
import { BAD_DEADLINE_S, MEMBERS, NS, type Recorder, rolloutHarness, SLACK_MS, SOAK_S, webPolicy } from "./progressive-rollout.fixtures.ts";

describe("progressive rollout across 3 members (issue 23)", () => {
  const h = rolloutHarness();
  const { memberImage, images, replicaSetImages, runsHealthy, record, stopRecording, state, entry, until, untilState, untilImage, ctl, rolloutStatus, eventReasons, untilBindingStrategy, untilRolloutCondition, succeededAt } = h;

  it("the first revision is Succeeded on every cluster at once", h.firstRevisionSucceeds);

  it("a good image rolls through canary, then rest-of-fleet once member1 has soaked minSuccessTime", async () => {
    const r1 = (await state("web-deployment"))?.revision;
    assert.ok(r1, "a first revision");
    const rec2 = record(() => memberImage("member2"));
    const rec3 = record(() => memberImage("member3"));
    await apply(h.control, deploymentJson("web", NS, 1, "nginx:2"));

    const started = await untilState("a rollout of a new revision", "web-deployment", (s) => s.revision !== r1);
    const r2 = started.revision;
    assert.equal(started.stableRevision, r1, "the stable revision is the one before");
    assert.notEqual(started.phase, "Succeeded");

    await untilImage("member1", "nginx:2");
    const at1 = await images();
    assert.equal(at1.member2, "nginx:1", "member2 waits for canary");
    assert.equal(at1.member3, "nginx:1", "member3 waits for canary");

    const soaking = await untilState("member1 Soaking at the new revision", "web-deployment", (s) => entry(s, "member1")?.phase === "Soaking" && entry(s, "member1")?.revision === r2);
    const soakSince = Date.parse(entry(soaking, "member1")?.since ?? "");
    assert.ok(Number.isFinite(soakSince), "member1's soak has a since");
    // While member1 soaks, the second group keeps the previous revision.
    assert.deepEqual([await memberImage("member2"), await memberImage("member3")], ["nginx:1", "nginx:1"], "rest-of-fleet keeps nginx:1 while member1 soaks");
    for (const m of ["member2", "member3"]) {
      assert.equal(entry(soaking, m)?.revision, r1, `${m} is told the previous revision`);
      assert.equal(entry(soaking, m)?.phase, "Waiting", `${m} waits`);
    }
    assert.equal(soaking.phase, "Progressing");
    // kubectl rollout status on the template waits for the fleet: the clusters still on nginx:1
    // keep its observedGeneration below its generation.
    const template = await h.control.kubeConfig().makeApiClient(AppsV1Api).readNamespacedDeployment({ name: "web", namespace: NS });
    assert.ok((template.status?.observedGeneration ?? 0) < (template.metadata?.generation ?? 0), `the template's observedGeneration ${template.status?.observedGeneration} is below its generation ${template.metadata?.generation} while rest-of-fleet waits`);
    // The Rollout condition is True only once it succeeded.
    await untilRolloutCondition("False", "Progressing", 15_000);

    const done = await untilState("the rollout of nginx:2 Succeeded", "web-deployment", succeededAt(r2), 90_000);
    assert.equal(done.phase, "Succeeded");
    for (const m of MEMBERS) await until(`${m} runs nginx:2 Available`, () => runsHealthy(m, "nginx:2"), (ok) => ok);
    const seen2 = await stopRecording(rec2);
    const seen3 = await stopRecording(rec3);
    for (const [m, seen] of [["member2", seen2], ["member3", seen3]] as const) {
      const at = seen.get("nginx:2");
      assert.ok(at !== undefined, `${m} was seen at nginx:2`);
      assert.ok(at >= soakSince + SOAK_S * 1000 - SLACK_MS, `${m} got nginx:2 ${at - soakSince} ms after member1 began soaking, before minSuccessTime (${SOAK_S}s)`);
    }
    await untilRolloutCondition("True", "Succeeded");
    const reasons = await eventReasons("Deployment", "web");
    assert.ok(["RolloutProgressing", "RolloutSucceeded"].some((r) => reasons.has(r)), `Rollout Events on the template, got ${[...reasons].join(", ")}`);
    // The leader's metrics count the rollout and its clusters by phase.
    const metrics = await h.flotilla.controlPlaneMetrics();
    assert.ok((metrics['flotilla_rollouts{phase="Succeeded"}'] ?? 0) >= 1, "flotilla_rollouts{phase=Succeeded}");
    assert.ok((metrics['flotilla_rollout_clusters{phase="Succeeded"}'] ?? 0) >= 3, "flotilla_rollout_clusters{phase=Succeeded}");
    assert.ok((metrics['flotilla_rollout_state_writes_total{outcome="written"}'] ?? 0) >= 2, "flotilla_rollout_state_writes_total{outcome=written}");
    // The whole fleet runs it: kubectl rollout status on the control cluster returns.
    assert.match(await kubectl(h.control, ["rollout", "status", "deployment/web", "-n", NS, "--timeout=60s"]), /successfully rolled out/);

    const status = await rolloutStatus();
    assert.equal(status.phase, "Succeeded");
    assert.equal(status.revision, r2);
    assert.equal(status.stableRevision, r2);
    assert.deepEqual(status.groups.map((g) => [g.name, g.clusters.map((c) => c.name).sort()]), [["canary", ["member1"]], ["rest-of-fleet", ["member2", "member3"]]]);
    assert.ok(status.groups.every((g) => g.clusters.every((c) => c.revision === r2 && c.phase === "Succeeded")));
    const table = await ctl(["rollout", "status", "deployment/web", "-n", NS]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /Succeeded/);
    assert.match(table.stdout, /member3/);
  });

  it("a bad image fails in canary after progressDeadline and is rolled back there; member2 and member3 never see it", async () => {
    const prev = await state("web-deployment");
    const good = await memberImage("member1");
    assert.ok(prev && good, "a finished rollout before");
    // The short deadline this case waits out; the case after it (the template changed back) keeps it.
    await apply(h.control, webPolicy({ deadlineS: BAD_DEADLINE_S }));
    await untilBindingStrategy("web-deployment", (r) => r.progressDeadline === `${BAD_DEADLINE_S}s`);
    const rec2 = record(() => memberImage("member2"));
    const rec3 = record(() => memberImage("member3"));
    const phases = record(async () => (await state("web-deployment"))?.phase);
    await apply(h.control, deploymentJson("web", NS, 1, NEVER_READY_IMAGE));

    const started = await untilState("a rollout of the bad revision", "web-deployment", (s) => s.revision !== prev.revision);
    const bad = started.revision;
    assert.equal(started.stableRevision, prev.revision);
    await untilImage("member1", NEVER_READY_IMAGE);
    const updating = await untilState("member1 told the bad revision", "web-deployment", (s) => entry(s, "member1")?.revision === bad);
    const toldAt = Date.parse(entry(updating, "member1")?.updatedAt ?? entry(updating, "member1")?.since ?? "");
    assert.ok(Number.isFinite(toldAt));

    // member1 never becomes healthy: past the deadline it fails, and the rollout rolls it back.
    const rollingBack = await untilState("the rollout RollingBack or RolledBack", "web-deployment", (s) => s.revision === bad && (s.phase === "RollingBack" || s.phase === "RolledBack"), (BAD_DEADLINE_S + 60) * 1000);
    assert.ok(Date.now() >= toldAt + BAD_DEADLINE_S * 1000 - SLACK_MS, `rolled back ${Date.now() - toldAt} ms after member1 was told, before the ${BAD_DEADLINE_S}s deadline`);
    assert.match(rollingBack.message ?? "", /member1/, "the state says which cluster failed");
    const backAt = Date.parse(entry(rollingBack, "member1")?.updatedAt ?? "");
    if (entry(rollingBack, "member1")?.revision === prev.revision && Number.isFinite(backAt)) assert.ok(backAt >= toldAt + BAD_DEADLINE_S * 1000, `member1 was told to go back ${backAt - toldAt} ms after it was told the bad revision, before the ${BAD_DEADLINE_S}s deadline`);

    const rolledBack = await untilState("the rollout RolledBack", "web-deployment", (s) => s.phase === "RolledBack", 90_000);
    assert.equal(rolledBack.revision, bad, "the rollout stays the bad revision's");
    assert.equal(rolledBack.stableRevision, prev.revision, "rolled back to the last good revision");
    assert.equal(entry(rolledBack, "member1")?.revision, prev.revision);
    assert.equal(entry(rolledBack, "member1")?.phase, "Succeeded");
    for (const m of ["member2", "member3"]) assert.equal(entry(rolledBack, m)?.revision, prev.revision, `${m} was never told the bad revision`);
    await until(`member1 runs ${good} again, Available`, () => runsHealthy("member1", good), (ok) => ok);

    const seenPhases = (await stopRecording(phases)).keys();
    assert.ok([...seenPhases].includes("RollingBack") || rollingBack.phase === "RollingBack", "RollingBack before RolledBack");
    for (const [m, rec] of [["member2", rec2], ["member3", rec3]] as const) {
      const seen = [...(await stopRecording(rec)).keys()];
      assert.deepEqual(seen, [good], `${m}'s Deployment only ever had ${good}`);
      assert.ok(!(await replicaSetImages(m)).has(NEVER_READY_IMAGE), `${m} has no ReplicaSet of the bad image`);
      assert.equal(await memberImage(m), good);
    }
    await untilRolloutCondition("False", "RolledBack");
    // kubectl rollout status on the template fails, as on one cluster past its progress deadline.
    const failedStatus = await until(
      "kubectl rollout status fails with the progress deadline",
      () => kubectl(h.control, ["rollout", "status", "deployment/web", "-n", NS, "--timeout=5s"]).then(() => "", (err: Error) => err.message),
      (msg) => /exceeded its progress deadline/.test(msg),
      { timeoutMs: 30_000, show: (msg) => msg ?? "" },
    );
    assert.match(failedStatus, /exceeded its progress deadline/);
    const reasons = await eventReasons("Deployment", "web");
    assert.ok(["RolloutRollingBack", "RolloutRolledBack"].some((r) => reasons.has(r)), `RollingBack/RolledBack Events on the template, got ${[...reasons].join(", ")}`);
    const status = await rolloutStatus();
    assert.equal(status.phase, "RolledBack");
  });

  it("the template changed back to the good image after the rollback: the stable revision again, Succeeded, nothing moves", async () => {
    const prev = await state("web-deployment");
    assert.ok(prev, "a rollout state before");
    const good = await memberImage("member2");
    assert.ok(good);
    const recs = MEMBERS.map((m) => record(() => memberImage(m)));
    await apply(h.control, deploymentJson("web", NS, 1, good));
    const done = await untilState("the rollout of the good image again Succeeded everywhere", "web-deployment", (s) => s.revision !== prev.revision && s.phase === "Succeeded" && s.clusters.every((c) => c.revision === s.revision && c.phase === "Succeeded"));
    if (prev.phase === "RolledBack") assert.equal(done.revision, prev.stableRevision, "the same template is the same revision");
    for (const [i, m] of MEMBERS.entries()) {
      assert.deepEqual([...(await stopRecording(recs[i] as Recorder)).keys()], [good], `${m} kept ${good} throughout`);
    }
    await untilRolloutCondition("True", "Succeeded");
  });
});
