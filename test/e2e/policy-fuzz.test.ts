// Property-based fuzzing of PropagationPolicy and OverridePolicy specs against the real
// apiserver and controllers (DESIGN §7, issue 11): every generated spec is either refused at
// apply time with a message (CRD validation) or accepted and answered with a status on its
// binding; the control plane never crashes, and what it propagated before is not lost.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { type Cluster as ClusterObject, LABELS, type KubeObject, type OverridePolicy, type PropagationPolicy } from "../../shared/api/types.ts";
import { renderClusterWorks } from "../../control-plane/rendering/render-works.ts";
import { matchPolicy } from "../../control-plane/scheduling/policy-match.ts";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type BindingJson, deploymentJson, eventually, getJson, kubectl } from "./helpers.ts";
import { overrideSpec, propagationSpec } from "./policy-fuzz.arbitraries.ts";

const NS = "fuzz";
const ANCHOR_NS = "anchor";
const SEED = Number(process.env.FLOTILLA_FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.FLOTILLA_FUZZ_RUNS ?? 60);
/** What the apiserver says when it refuses an object: why (CRD validation, or SSA's typed patch), and the field. */
const REFUSAL = /(is invalid|Invalid value|Unsupported value|Required value|must be|should be|unknown field|Too long|Too many|cannot be|failed to create typed patch object|expected \w+, got)/;
const NAMES_FIELD = /(^|[\s.])spec[.[:]|\.spec\b|\bspec\b/m;
/** Signs of a programming error in the control plane's log (a bad input that was not given a defined answer). */
const CRASH = /(TypeError|RangeError|ReferenceError|SyntaxError|Cannot read propert|is not a function|is not iterable|Maximum call stack|Unhandled|uncaught)/;

interface Outcome {
  refused: number;
  answered: number;
}

describe("policy fuzzing against the real apiserver and controllers", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let template: KubeObject;
  const anchors = new Map<string, string>();
  const anchorUids = async (m: Cluster) => ({
    deploy: (await getJson<KubeObject>(m, ["deploy", "-n", ANCHOR_NS, "anchor"]))?.metadata.uid,
    cm: (await getJson<KubeObject>(m, ["configmap", "-n", ANCHOR_NS, "anchor"]))?.metadata.uid,
  });
  /**
   * Deletes the previous object of this kind and server-side-applies this one: the stored object,
   * or undefined when the apiserver refused it, which it must do saying why and naming the field.
   */
  const applyPolicy = async (kind: "PropagationPolicy" | "OverridePolicy", name: string, spec: unknown, seen: Outcome): Promise<KubeObject | undefined> => {
    await kubectl(fleet.control, ["delete", kind === "PropagationPolicy" ? "propagationpolicies" : "overridepolicies", "-n", NS, "--all"]);
    let refused: string;
    try {
      const stored = JSON.parse(await kubectl(fleet.control, ["apply", "--server-side", "--force-conflicts", "-o", "json", "-f", "-"], JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind, metadata: { name, namespace: NS }, spec }))) as KubeObject;
      seen.answered++;
      return stored;
    } catch (err) {
      refused = String((err as { stderr?: string }).stderr ?? err);
    }
    assert.match(refused, REFUSAL, `a refusal says why: ${refused}`);
    assert.match(refused, NAMES_FIELD, `a refusal names the field: ${refused}`);
    if (process.env.FLOTILLA_FUZZ_VERBOSE) console.log(`refused: ${refused.trim().slice(0, 300)}`);
    seen.refused++;
    return undefined;
  };
  const binding = () => getJson<BindingJson & { metadata: { labels?: Record<string, string> }; status?: { conditions?: { type: string; status: string; reason: string; message: string }[] } }>(fleet.control, ["rb", "-n", NS, "fz-deployment"]);

  before(async () => {
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet);
    for (const ns of [NS, ANCHOR_NS]) await kubectl(fleet.control, ["create", "namespace", ns]);
    // What was propagated before the fuzz, in a namespace no fuzzed (namespaced) policy can select.
    await apply(fleet.control, deploymentJson("anchor", ANCHOR_NS, 1));
    await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "anchor", namespace: ANCHOR_NS }, data: { a: "1" } }));
    await apply(fleet.control, JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "anchor", namespace: ANCHOR_NS }, spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "anchor" }, { apiVersion: "v1", kind: "ConfigMap", name: "anchor" }] } }));
    for (const m of fleet.members) {
      const uids = await eventually(`anchor in ${m.name}`, () => anchorUids(m), (u) => u.deploy !== undefined && u.cm !== undefined);
      anchors.set(m.name, JSON.stringify(uids));
    }
    await apply(fleet.control, deploymentJson("fz", NS, 3, "nginx:1.25"));
    template = (await getJson<KubeObject>(fleet.control, ["deploy", "-n", NS, "fz"])) as KubeObject;
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it(`PropagationPolicy specs (${RUNS}, seed ${SEED}): refused naming the field, or a Scheduled condition on the binding`, async () => {
    const seen: Outcome = { refused: 0, answered: 0 };
    let i = 0;
    await fc.assert(
      fc.asyncProperty(propagationSpec("fz"), async (spec) => {
        const name = `fz-${++i}`;
        const stored = await applyPolicy("PropagationPolicy", name, spec, seen);
        if (stored === undefined) return;
        if (matchPolicy(template, [stored as unknown as PropagationPolicy]) === undefined) {
          // DESIGN §11: a template no policy selects keeps its last placement, and its binding says so.
          await eventually(
            `${name} selects nothing: no binding, or one that keeps its last placement and says no policy claims it`,
            () => binding().then((b) => b ?? "none"),
            (b) => b === "none" || (b.status?.conditions ?? []).some((c) => c.type === "Scheduled" && c.reason === "NoPolicyClaims"),
            20_000,
          );
          return;
        }
        const b = await eventually(
          `${name}: the binding answers with a Scheduled condition`,
          binding,
          (x) => x.metadata.labels?.[LABELS.policyName] === name && (x.status?.conditions ?? []).some((c) => c.type === "Scheduled" && c.reason !== "" && (c.status === "True" || c.message !== "")),
          20_000,
        );
        assert.ok(b);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    console.log(`policy fuzz: ${seen.refused} PropagationPolicies refused by the apiserver, ${seen.answered} accepted and answered`);
    assert.ok(seen.refused > 0 && seen.answered > 0, "the generators reach both sides");
  });

  it(`OverridePolicy specs (${Math.ceil(RUNS / 2)}, seed ${SEED}): refused naming the field, or a status per cluster on the binding`, async () => {
    await kubectl(fleet.control, ["delete", "propagationpolicies", "-n", NS, "--all"]);
    await apply(fleet.control, JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "fz", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "fz" }] } }));
    const seen: Outcome = { refused: 0, answered: 0 };
    let i = 0;
    let overridesFailed = 0;
    const clusters = new Map(((await getJson<{ items: ClusterObject[] }>(fleet.control, ["clusters"]))?.items ?? []).map((c) => [c.metadata.name ?? "", c]));
    await fc.assert(
      fc.asyncProperty(overrideSpec("fz"), async (spec) => {
        const stored = await applyPolicy("OverridePolicy", `fzo-${++i}`, spec, seen);
        if (stored === undefined) return;
        // Which clusters the rules cannot be applied for, by the control plane's own (pure) renderer.
        const targets = [{ name: "member1" }, { name: "member2" }];
        const rendered = renderClusterWorks(template, targets, (n) => clusters.get(n), [stored as unknown as OverridePolicy], "Abort");
        const failing = new Set(targets.filter((t) => rendered.get(t.name)?.ok === false).map((t) => t.name));
        overridesFailed += failing.size;
        // Each cluster says so with ApplyOverridesFailed and a message; the others show applied, or another status word with a message.
        await eventually(
          `fzo-${i}: a status per cluster (ApplyOverridesFailed on ${[...failing].join(", ") || "none"})`,
          binding,
          (b) =>
            targets.every((t) =>
              b.status?.aggregatedStatus?.some((s) =>
                s.clusterName === t.name && (failing.has(t.name) ? s.reason === "ApplyOverridesFailed" && !!s.message : s.reason !== "ApplyOverridesFailed" && ((s.applied === true && !s.reason) || (!!s.reason && !!s.message))),
              ),
            ),
          30_000,
        );
      }),
      { numRuns: Math.ceil(RUNS / 2), seed: SEED, endOnFailure: true },
    );
    console.log(`policy fuzz: ${seen.refused} OverridePolicies refused by the apiserver, ${seen.answered} accepted and answered (${overridesFailed} cluster Works failed with ApplyOverridesFailed)`);
    assert.ok(seen.refused > 0 && seen.answered > 0, "the generators reach both sides");
  });

  it("afterwards the control plane runs, is healthy, logged no programming error, and nothing propagated before was lost", async () => {
    assert.equal(flotilla.controlPlane.running, true, "the control plane is still running");
    const health = await fetch(`http://127.0.0.1:${flotilla.controlPlaneHealthPort}/healthz`);
    assert.equal(health.status, 200);
    const log = await readFile(join(flotilla.logsDir, "control-plane-1.log"), "utf8");
    const bad = log.split("\n").filter((l) => CRASH.test(l));
    assert.deepEqual(bad.slice(0, 5), [], "no programming error in the control plane's log");
    const failed = log.split("\n").filter((l) => l.includes("reconcile failed"));
    if (failed.length > 0) console.log(`policy fuzz: ${failed.length} failed reconciles in the control plane's log, e.g. ${failed.slice(0, 3).join("\n")}`);
    for (const m of fleet.members) assert.equal(JSON.stringify(await anchorUids(m)), anchors.get(m.name), `the anchor objects in ${m.name} are the same objects (never deleted or recreated)`);
  });
});
