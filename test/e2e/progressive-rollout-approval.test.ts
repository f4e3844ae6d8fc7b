// Issue 23 on 3 members: a BeforeGroup approval holds the second group until `flotillactl rollout
// approve`, and a ConfigMap goes in the same waves as a Deployment (the other rollout cases:
// progressive-rollout.test.ts; a control-plane kill: progressive-rollout-restart.test.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CoreV1Api, AppsV1Api } from "@kubernetes/client-node";
import { apply, deploymentJson, sleep } from "./helpers.ts";
import { MEMBERS, NS, rolloutHarness, secretJson, secretPolicy, settingsJson, settingsPolicy, SLACK_MS, SOAK_S, webPolicy } from "./progressive-rollout.fixtures.ts";

describe("progressive rollout: approval and a kind without replicas (issue 23)", () => {
  const h = rolloutHarness();
  const { memberImage, memberSettings, memberPassword, runsHealthy, record, stopRecording, state, entry, until, untilState, ctl, rolloutStatus, eventReasons, untilBindingStrategy, untilRolloutCondition, succeededAt } = h;

  it("the first revision is Succeeded on every cluster at once", h.firstRevisionSucceeds);

  it("approval BeforeGroup holds rest-of-fleet until flotillactl rollout approve", async () => {
    await apply(h.control, webPolicy({ approval: "BeforeGroup" }));
    await untilBindingStrategy("web-deployment", (r) => r.groups?.[1]?.approval === "BeforeGroup");
    const old2 = await memberImage("member2");
    const old3 = await memberImage("member3");
    assert.ok(old2 && old3);
    const prev = await state("web-deployment");
    assert.ok(prev);
    const rec2 = record(() => memberImage("member2"));
    await apply(h.control, deploymentJson("web", NS, 1, "nginx:3"));

    const waiting = await untilState("WaitingForApproval for rest-of-fleet", "web-deployment", (s) => s.revision !== prev.revision && s.phase === "WaitingForApproval", 90_000);
    const r3 = waiting.revision;
    assert.equal(waiting.waitingFor, "BeforeGroup/rest-of-fleet");
    assert.equal(entry(waiting, "member1")?.revision, r3);
    assert.equal(entry(waiting, "member1")?.phase, "Succeeded", "canary is done");
    await until("member1 runs nginx:3", () => runsHealthy("member1", "nginx:3"), (ok) => ok);
    // It stays there.
    await sleep(3_000);
    const still = await state("web-deployment");
    assert.equal(still?.phase, "WaitingForApproval");
    assert.equal(await memberImage("member2"), old2, "member2 keeps the old image until approved");
    assert.equal(await memberImage("member3"), old3, "member3 keeps the old image until approved");
    const status = await rolloutStatus();
    assert.equal(status.phase, "WaitingForApproval");
    assert.equal(status.waitingFor, "BeforeGroup/rest-of-fleet");
    const reasons = await eventReasons("Deployment", "web");
    assert.ok(reasons.has("RolloutWaitingForApproval"), `a RolloutWaitingForApproval Event, got ${[...reasons].join(", ")}`);

    const approved = await ctl(["rollout", "approve", "deployment/web", "-n", NS]);
    assert.equal(approved.code, 0, approved.stderr);
    assert.match(approved.stdout, /rest-of-fleet/);
    const approvedAt = Date.now();
    await untilState("the rollout of nginx:3 Succeeded", "web-deployment", succeededAt(r3), 90_000);
    for (const m of MEMBERS) await until(`${m} runs nginx:3 Available`, () => runsHealthy(m, "nginx:3"), (ok) => ok);
    const seen2 = await stopRecording(rec2);
    assert.ok((seen2.get("nginx:3") ?? 0) >= approvedAt - SLACK_MS, "member2 got nginx:3 only after the approval");
    await untilRolloutCondition("True", "Succeeded");

    // Restore: no approval for the cases after this one.
    await apply(h.control, webPolicy());
    await untilBindingStrategy("web-deployment", (r) => r.groups?.[1]?.approval === undefined || r.groups[1].approval === "None");
  });

  it("a ConfigMap change goes in the same waves: a kind without replicas is healthy once applied", async () => {
    await apply(h.control, settingsJson("1"));
    await apply(h.control, settingsPolicy());
    // A Secret rolls out beside it (issue 37, item 5): its revisions keep its values out of the
    // ControllerRevisions, which the built-in view role may read, and still render the old value.
    await apply(h.control, secretJson("first-s3cret"));
    await apply(h.control, secretPolicy());
    const first = await untilState("settings' first rollout state", "settings-configmap", (s) => s.phase === "Succeeded" && s.clusters.length === 3);
    const firstSecret = await untilState("db's first rollout state", "db-secret", (s) => s.phase === "Succeeded" && s.clusters.length === 3);
    for (const m of MEMBERS) await until(`${m} has settings version 1`, () => memberSettings(m), (v) => v === "1");
    for (const m of MEMBERS) await until(`${m} has db's first password`, () => memberPassword(m), (v) => v === "first-s3cret");

    const recs = new Map(MEMBERS.map((m) => [m, record(() => memberSettings(m))]));
    await apply(h.control, settingsJson("2"));
    await apply(h.control, secretJson("second-s3cret"));
    const started = await untilState("a rollout of settings' new revision", "settings-configmap", (s) => s.revision !== first.revision);
    const r2 = started.revision;
    await until("member1 has settings version 2", () => memberSettings("member1"), (v) => v === "2");
    assert.equal(await memberSettings("member2"), "1", "member2 waits for canary");
    assert.equal(await memberSettings("member3"), "1", "member3 waits for canary");
    await untilState("a rollout of db's new revision", "db-secret", (s) => s.revision !== firstSecret.revision);
    await until("member1 has db's second password", () => memberPassword("member1"), (v) => v === "second-s3cret");
    // A member never runs ahead of the state that names its revision: read it first, then the state.
    const password2 = await memberPassword("member2");
    const told = await state("db-secret");
    if (entry(told, "member2")?.revision === firstSecret.revision) assert.equal(password2, "first-s3cret", "member2 keeps db's first password, rendered from its stored revision, while member1 soaks");
    const core = h.control.kubeConfig().makeApiClient(CoreV1Api);
    const revisions = await h.control.kubeConfig().makeApiClient(AppsV1Api).listNamespacedControllerRevision({ namespace: NS });
    const ofSecret = revisions.items.filter((r) => (r.data as { kind?: string } | undefined)?.kind === "Secret");
    assert.equal(ofSecret.length, 2, "db has a ControllerRevision per revision");
    for (const value of ["first-s3cret", "second-s3cret"]) {
      const text = JSON.stringify(revisions.items);
      assert.ok(!text.includes(Buffer.from(value).toString("base64")) && !text.includes(value), `a ControllerRevision shows ${value}`);
    }
    const held = (await core.listNamespacedSecret({ namespace: NS })).items.filter((s) => s.type === "flotilla.dev/rollout-revision");
    assert.deepEqual(held.map((s) => s.metadata?.name).sort(), ofSecret.map((r) => r.metadata?.name).sort(), "each revision's values are in a Secret of its name");
    assert.ok(held.every((s) => s.metadata?.ownerReferences?.[0]?.name === "db"), "owned by the template");
    for (const m of MEMBERS) {
      const copies = (await h.member(m).kubeConfig().makeApiClient(CoreV1Api).listNamespacedSecret({ namespace: NS })).items;
      assert.ok(!copies.some((s) => s.type === "flotilla.dev/rollout-revision"), `${m} got a revision's Secret`);
    }
    const soaking = await untilState("member1 Soaking or Succeeded at the new revision", "settings-configmap", (s) => entry(s, "member1")?.revision === r2 && ["Soaking", "Succeeded"].includes(entry(s, "member1")?.phase ?? ""));
    const m1 = entry(soaking, "member1");
    if (m1?.phase === "Soaking") {
      assert.equal(entry(soaking, "member2")?.revision, first.revision, "member2 is told the old data while member1 soaks");
      assert.equal(await memberSettings("member2"), "1");
    }
    await untilState("settings' rollout Succeeded", "settings-configmap", succeededAt(r2), 90_000);
    for (const m of MEMBERS) await until(`${m} has settings version 2`, () => memberSettings(m), (v) => v === "2");
    for (const m of MEMBERS) await until(`${m} has db's second password`, () => memberPassword(m), (v) => v === "second-s3cret");
    const seen = new Map<string, number | undefined>();
    for (const [m, r] of recs) seen.set(m, (await stopRecording(r)).get("2"));
    const t1 = seen.get("member1");
    assert.ok(t1 !== undefined);
    for (const m of ["member2", "member3"]) {
      const t = seen.get(m);
      assert.ok(t !== undefined, `${m} was seen with version 2`);
      assert.ok(t >= t1 + SOAK_S * 1000 - SLACK_MS, `${m} got version 2 ${t - t1} ms after member1, under minSuccessTime (${SOAK_S}s)`);
    }
  });
});
