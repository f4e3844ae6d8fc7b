import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fieldResets, type HpaEpisode, heldUntil, judgedChanges, type ReplicaChange } from "./field-reset-judge.ts";

describe("fieldResets", () => {
  // The user's HPA on deployment0 in m1 from 1,000 ms to 9,000 ms: scaled to 15 (rv 100), then to 18 (rv 200).
  const episode = (over: Partial<HpaEpisode> = {}): HpaEpisode => ({
    member: "m1",
    deployment: "deployment0",
    hpa: "deployment0-userhpa",
    fromMs: 1_000,
    toMs: 9_000,
    scales: [
      { uid: "u1", replicas: 15, resourceVersion: 100, atMs: 2_000 },
      { uid: "u1", replicas: 18, resourceVersion: 200, atMs: 5_000 },
    ],
    ...over,
  });
  const seen = (atMs: number, replicas: number, resourceVersion: number, over: Partial<ReplicaChange> = {}): ReplicaChange => ({ atMs, member: "m1", deployment: "deployment0", uid: "u1", replicas, resourceVersion, ...over });

  const cases: { name: string; changes: ReplicaChange[]; episodes?: HpaEpisode[]; namespaces?: { member: string; fromMs: number; goneMs: number }[]; resets: number[]; judged: number }[] = [
    { name: "the user's own scales, seen: nothing", changes: [seen(2_010, 15, 100), seen(5_010, 18, 200)], resets: [], judged: 2 },
    { name: "the template's division before the user's first scale is no reset (the HPA did not hold it yet)", changes: [seen(1_500, 4, 90), seen(2_010, 15, 100)], resets: [], judged: 1 },
    { name: "a value seen late but written before the rescale is judged by its resourceVersion", changes: [seen(5_001, 15, 150)], resets: [], judged: 1 },
    { name: "the agent puts the template's division back while the HPA holds: a reset", changes: [seen(3_000, 4, 120)], resets: [4], judged: 1 },
    { name: "the old value back after the rescale: a reset", changes: [seen(6_000, 15, 210)], resets: [15], judged: 1 },
    { name: "after the user deleted the HPA, the agent may set the template's division", changes: [seen(9_000, 4, 300)], resets: [], judged: 0 },
    { name: "an HPA kept to the end holds until the end", changes: [seen(60_000, 4, 900)], episodes: [episode({ toMs: undefined })], resets: [4], judged: 1 },
    { name: "another object of the same name (a template made again) was never scaled by the user", changes: [seen(6_000, 4, 250, { uid: "u2" })], resets: [], judged: 0 },
    { name: "another member's or another Deployment's copy is not held", changes: [seen(6_000, 4, 250, { member: "m2" }), seen(6_000, 4, 250, { deployment: "deployment1" })], resets: [], judged: 0 },
    { name: "a fault deleted the member namespace, HPA and all: no longer held from then", changes: [seen(7_000, 4, 260)], namespaces: [{ member: "m1", fromMs: 6_500, goneMs: 6_900 }], resets: [], judged: 0 },
    { name: "a namespace deletion on another member changes nothing", changes: [seen(7_000, 4, 260)], namespaces: [{ member: "m2", fromMs: 6_500, goneMs: 6_900 }], resets: [4], judged: 1 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const episodes = c.episodes ?? [episode()];
      assert.deepEqual(fieldResets(episodes, c.changes, c.namespaces).map((r) => r.replicas), c.resets);
      assert.equal(judgedChanges(episodes, c.changes, c.namespaces).length, c.judged);
    });
  }

  it("a reset names the HPA and the value the member should have kept", () => {
    assert.deepEqual(fieldResets([episode()], [seen(6_000, 4, 210)]), [{ ...seen(6_000, 4, 210), expected: 18, hpa: "deployment0-userhpa" }]);
  });

  it("an HPA holds until the user deletes it, or a fault deletes its member namespace after it was made", () => {
    const ns = (member: string, fromMs: number) => ({ member, fromMs, goneMs: fromMs + 500 });
    const cases: { name: string; e: HpaEpisode; namespaces: ReturnType<typeof ns>[]; until: number }[] = [
      { name: "deleted by the user", e: episode(), namespaces: [], until: 9_000 },
      { name: "kept to the end", e: episode({ toMs: undefined }), namespaces: [], until: Infinity },
      { name: "its namespace deleted first", e: episode(), namespaces: [ns("m1", 6_000)], until: 6_000 },
      { name: "a namespace deleted before the HPA was made, or on another member, does not end it", e: episode(), namespaces: [ns("m1", 500), ns("m2", 6_000)], until: 9_000 },
    ];
    for (const c of cases) assert.equal(heldUntil(c.e, c.namespaces), c.until, c.name);
  });
});
