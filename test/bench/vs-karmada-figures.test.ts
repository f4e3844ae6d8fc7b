import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  controlWrites,
  efficiencies,
  isBackgroundWrite,
  isControlStack,
  memoryTable,
  memoryTotals,
  type ProcessFigure,
  propagationTable,
  type PropagationRun,
  ratio,
} from "./vs-karmada-figures.ts";

const MiB = 1024 * 1024;

describe("bench:vs-karmada figures", () => {
  it("tells a system's own components from its control apiserver's processes", () => {
    const cases: [string, boolean][] = [
      ["control-etcd", true],
      ["control-kube-apiserver", true],
      ["control-kube-controller-manager", true],
      ["karmada-etcd", true],
      ["karmada-kube-apiserver", true],
      ["karmada-kube-controller-manager", true],
      ["karmada-controller-manager", false],
      ["karmada-scheduler", false],
      ["karmada-aggregated-apiserver", false],
      ["karmada-webhook", false],
      ["member1-karmada-agent", false],
      ["control-plane", false],
      ["agent-member1", false],
    ];
    for (const [name, stack] of cases) assert.equal(isControlStack(name), stack, name);
  });

  it("counts Leases and Cluster heartbeats as background, and everything a template causes as its own", () => {
    const cases: [string, boolean][] = [
      ["APPLY leases", true],
      ["PUT leases (409)", true],
      ["APPLY clusters/status", true],
      ["PUT clusters/status", true],
      ["PUT clusters", true],
      ["PATCH resourcebindings/status", false],
      ["POST works", false],
      ["PUT works/status (409)", false],
      ["APPLY deployments/status", false],
      ["POST clusterresourcebindings", false],
      ["POST subjectaccessreviews", true],
      ["POST tokenreviews", true],
      ["POST events", false],
    ];
    for (const [key, background] of cases) assert.equal(isBackgroundWrite(key), background, key);
  });

  it("splits a run's control writes into per template, refused and background, less the bench's own", () => {
    const counts = new Map([
      ["APPLY deployments", 200],
      ["POST resourcebindings", 200],
      ["PUT resourcebindings/status", 300],
      ["POST works", 400],
      ["PUT works/status (409)", 7],
      ["APPLY leases", 30],
      ["PUT clusters/status", 12],
      ["PUT clusters/status (409)", 1],
      ["POST events", 90],
      ["PATCH events", 10],
      ["POST events (409)", 3],
      ["POST subjectaccessreviews", 5],
    ]);
    assert.deepEqual(controlWrites(counts, 200, 200), { perTemplate: 5, eventsPerTemplate: 0.5, refused: 10, background: 48 });
    assert.deepEqual(controlWrites(new Map(), 0, 10), { perTemplate: 0, eventsPerTemplate: 0, refused: 0, background: 0 });
  });

  const run = (system: "flotilla" | "karmada", round: number, s: number, extra: Partial<PropagationRun> = {}): PropagationRun => ({
    system,
    round,
    existMs: s * 1000,
    availableMs: 2 * s * 1000,
    summedMs: 3 * s * 1000,
    controlPerTemplate: system === "flotilla" ? 2 : 8,
    eventsPerTemplate: system === "flotilla" ? 0 : 4,
    controlRefused: 0,
    memberWrites: 1600,
    ...extra,
  });

  it("sums each measure over the rounds before dividing, Karmada's time over Flotilla's", () => {
    const e = efficiencies([run("flotilla", 1, 10), run("karmada", 1, 20), run("flotilla", 2, 30), run("karmada", 2, 20)]);
    assert.equal(e.existMs, 1);
    assert.equal(e.availableMs, 1);
    assert.equal(e.summedMs, 1);
    assert.equal(efficiencies([run("flotilla", 1, 10), run("karmada", 1, 15)]).availableMs, 1.5);
  });

  it("prints every round, the efficiencies and the writes per template with their ratio", () => {
    const lines = propagationTable([run("flotilla", 1, 10), run("karmada", 1, 15), run("karmada", 2, 15), run("flotilla", 2, 10)], 200, 2);
    assert.equal(lines[0], "apply → exist in every member: flotilla 10.0 s + 10.0 s, karmada 15.0 s + 15.0 s; efficiency (karmada ÷ flotilla) 1.50");
    assert.match(lines[2] as string, /fleet sum on every template: flotilla 30\.0 s \+ 30\.0 s, karmada 45\.0 s \+ 45\.0 s; efficiency \(karmada ÷ flotilla\) 1\.50$/);
    assert.match(lines[3] as string, /^control-apiserver writes per template .*: flotilla 2\.00, karmada 8\.00; ratio 0\.25; without Events: flotilla 2\.00, karmada 4\.00; ratio 0\.50; refused per round: flotilla 0 \+ 0, karmada 0 \+ 0$/);
    assert.equal(lines[4], "member writes per Deployment copy (without Leases): flotilla 4.00, karmada 4.00; ratio 1.00");
  });

  it("sums memory per system, its own components apart from its control apiserver", () => {
    const ps: ProcessFigure[] = [
      { system: "flotilla", name: "control-plane", rssBytes: 100 * MiB, peakBytes: 120 * MiB },
      { system: "flotilla", name: "agent-member1", rssBytes: 80 * MiB, peakBytes: 90 * MiB },
      { system: "flotilla", name: "control-kube-apiserver", rssBytes: 300 * MiB, peakBytes: 300 * MiB },
      { system: "karmada", name: "karmada-controller-manager", rssBytes: 150 * MiB, peakBytes: 150 * MiB },
      { system: "karmada", name: "member1-karmada-agent", rssBytes: 90 * MiB, peakBytes: 100 * MiB },
      { system: "karmada", name: "karmada-kube-apiserver", rssBytes: 320 * MiB, peakBytes: 330 * MiB },
    ];
    const t = memoryTotals(ps);
    assert.deepEqual(t.flotilla, { components: 180 * MiB, all: 480 * MiB, peakComponents: 210 * MiB });
    assert.deepEqual(t.karmada, { components: 240 * MiB, all: 560 * MiB, peakComponents: 250 * MiB });
    const lines = memoryTable(ps);
    assert.equal(lines.length, ps.length + 3);
    assert.match(lines[2] as string, /control-kube-apiserver .* \(control apiserver\)$/);
    assert.equal(lines.at(-1), "ratio flotilla / karmada: own components 0.75, peak sum 0.84, with control apiservers 0.86");
  });

  it("gives no ratio where there is nothing to divide by", () => {
    assert.equal(ratio(1, 0), "—");
    assert.equal(ratio(Number.NaN, 1), "—");
    assert.equal(ratio(3, 4), "0.75");
  });
});
