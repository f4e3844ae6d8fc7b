// Benchmark of the progressive rollout's overhead (issue 23) on a single change: a one-group
// rollout against no rollout, on bench:latency's measurement. Two namespaces in the control
// cluster, each with a PropagationPolicy for the sample ConfigMaps: one plain (the baseline), one
// with `rollout: {}`, one wave of every cluster and no soak (the defaults). A sample is created, updated (data.v changes) and deleted in one namespace, each
// timed until every member's watch shows it; samples alternate which side goes first.
// A template's first revision goes out at once; the update is the rollout path: the leader's
// rollout controller stores the new revision as a ControllerRevision and writes the binding's
// status.rollout, and only then does the work cache render the clusters at it. So that every
// update takes that path (a binding without status.rollout yet renders the template as it is), and
// neither side's update meets its create's trailing status writes, each update waits, untimed,
// until its binding has settled: FullyApplied, and on the rollout side the rollout Succeeded (that
// wait is printed too). Prints p50/p99 per operation for each side and their ratios
// rollout / no rollout, then the rollout controller's state writes and conflicts (control-plane
// metrics); none written fails the run after its figures (the rollout side was no rollout).
// Never fails on a time: a change not seen within --timeout seconds is counted as missed.
//   node test/bench/rollout-overhead.ts [--samples N] [--timeout S] [--bundle] [--agent-node-args FLAGS]
import { agentOptions } from "./agent-options.ts";
import { RESOURCES } from "../../shared/api/resources.ts";
import type { ResourceBinding } from "../../shared/api/types.ts";
import { objectPath } from "../../shared/kube-rest.ts";
import { latencyArgs, type LatencyFleet, measurePhase, runLatencyBench, sleep } from "./latency-fleet.ts";
import { formatTable } from "./latency-table.ts";

const { n: N, timeoutMs, agentValues } = latencyArgs(30);
const agents = await agentOptions(agentValues);

/** Templates under a policy with a one-group rollout. */
const ROLLOUT = "rollout";
/** Templates under the same policy without one (the baseline). */
const PLAIN = "no-rollout";
const LABELS = { measured: "rollout", baseline: "no rollout" };

/** Whether a binding has settled after its template's create: applied everywhere, its rollout (if any) succeeded and said so. */
function settled(b: ResourceBinding): boolean {
  const status = (type: string) => b.status?.conditions?.find((c) => c.type === type)?.status;
  if (status("FullyApplied") !== "True") return false;
  return b.spec.rollout === undefined || (b.status?.rollout?.phase === "Succeeded" && status("Rollout") === "True");
}

await runLatencyBench({ timeoutMs, maxSockets: 4, agents, intro: (up) => `fleet: control + 2 members, Flotilla up in ${up}; ${N} samples per side` }, async (f: LatencyFleet) => {
  await f.propagatedNamespace(ROLLOUT, { rollout: {} });
  await f.propagatedNamespace(PLAIN);
  const writes = async () => {
    const m = await f.flotilla.controlPlaneMetrics().catch((): Record<string, number> => ({}));
    const of = (outcome: string) => m[`flotilla_rollout_state_writes_total{outcome="${outcome}"}`] ?? 0;
    return { written: of("written"), conflict: of("conflict") };
  };
  /** ms from the create seen to the binding settled, per side; unsettled within the timeout counted as missed. */
  const waits = { phase: "idle", op: "settle", measured: [] as number[], baseline: [] as number[], measuredMissed: 0, baselineMissed: 0 };
  const settle = (namespace: string, side: "measured" | "baseline", name: string) => async () => {
    const path = objectPath(RESOURCES.resourceBinding, namespace, `${name}-configmap`);
    const t0 = performance.now();
    while (performance.now() - t0 < timeoutMs) {
      const b = await f.control.get<ResourceBinding>(path).catch(() => undefined);
      if (b !== undefined && settled(b)) {
        waits[side].push(performance.now() - t0);
        return;
      }
      await sleep(20);
    }
    waits[`${side}Missed`]++;
  };
  const before = await writes();
  console.log("single change → watch event in every member (ms; ratio = rollout / no rollout; samples and missed: rollout/no rollout)");
  await measurePhase(f, "idle", N, {
    measured: (name) => f.cycle([f.control], ROLLOUT, name, settle(ROLLOUT, "measured", name)),
    baseline: (name) => f.cycle([f.control], PLAIN, name, settle(PLAIN, "baseline", name)),
  }, LABELS);
  const after = await writes();
  console.log("untimed wait before each update, from the create seen in every member until the binding settled (FullyApplied; rollout Succeeded), polled every 20 ms:");
  for (const line of formatTable([waits], LABELS)) console.log(`  ${line}`);
  const [written, conflicts] = [after.written - before.written, after.conflict - before.conflict];
  console.log(`rollout state writes: ${written} written, ${conflicts} conflicts (409, looked at again after 200 ms), over ${N + 1} rollout-side samples (warm-up included)`);
  if (written === 0) throw new Error("the rollout controller wrote no state: the rollout side did not take the rollout path");
});
