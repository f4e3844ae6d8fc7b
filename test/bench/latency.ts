// Benchmark of single-change latency: the time from one write to the watch event it causes in
// every member, through Flotilla against the same write made directly in the members.
// - Flotilla: a ConfigMap template is created, updated (data.v changes) and deleted in the
//   control cluster under a PropagationPolicy; each is timed until every member's watch shows it
//   (ADDED with the value, MODIFIED with the new value, DELETED).
// - Direct: the same three writes, sent to every member at once from this process, each timed to
//   the last member's own watch event.
// ConfigMaps, because no member controller acts on them: the figure is the pipeline's alone.
// Issue 42: on the idle fleet also Flotilla against the relay, its floor: the same write applied to
// the control cluster and, once that cluster's own watch shows it, by this process to the members
// (two apiservers' writes and watches in series, nothing between them).
// Samples alternate which side goes first. Both sides are measured on an idle fleet, then with
// --resident R other templates propagated and resident (the direct side then runs against
// members that hold those R objects too). Prints p50/p99 per operation and their ratios
// Flotilla / direct. Never fails on a time: a change not seen within --timeout seconds is
// counted as missed.
//   node test/bench/latency.ts [--samples N] [--resident R] [--timeout S] [--bundle] [--agent-node-args FLAGS]
import { collectionPath, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { configMap, FIELD_MANAGER, latencyArgs, measurePhase, PROPAGATED, runLatencyBench, SAMPLE, secs, sleep } from "./latency-fleet.ts";
import { agentOptions } from "./agent-options.ts";
import { pool } from "./latency-pool.ts";
import { settleControlPlane } from "./latency-settle.ts";
import { configMaps } from "./latency-sightings.ts";
import { formatTable, type Row, type TableLabels } from "./latency-table.ts";

const { n: N, timeoutMs, values, agentValues } = latencyArgs(50, { resident: "1000" });
const agents = await agentOptions(agentValues);
const R = values.resident as number;
if (!Number.isInteger(R) || R < 0) throw new Error("--resident wants an integer ≥ 0");

/** Templates in the control cluster (propagated to the same namespace in the members). */
const VIA = "latency";
/** Where the direct writes go, in the members. */
const DIRECT = "latency-direct";
/** Where the relayed writes go: the control cluster (no policy selects it), then the members. */
const RELAY = "latency-relay";
const RESIDENT_CONCURRENCY = 16;
const RELAY_LABELS: TableLabels = { measured: "flotilla", baseline: "relay" };

await runLatencyBench({ timeoutMs, maxSockets: RESIDENT_CONCURRENCY + 4, agents, intro: (up) => `fleet: control + 2 members, Flotilla up in ${up}; ${N} samples per phase, then ${R} resident templates` }, async (f) => {
  const { control, members } = f;
  for (const m of members) {
    await f.createNamespace(m.rest, DIRECT);
    await f.createNamespace(m.rest, RELAY);
  }
  await f.createNamespace(control, RELAY);
  await f.propagatedNamespace(VIA);

  const sides = {
    measured: (name: string) => f.cycle([control], VIA, name),
    baseline: (name: string) => f.cycle(members.map((m) => m.rest), DIRECT, name),
  };
  const rows: Row[] = [];
  rows.push(...(await measurePhase(f, "idle", N, sides)));
  // Issue 42: the floor under Flotilla, two apiservers in series with nothing between them.
  const relayed = await measurePhase(f, "idle", N, { measured: sides.measured, baseline: (name) => f.relay(RELAY, name) }, RELAY_LABELS);

  if (R > 0) {
    const t0 = performance.now();
    const names = Array.from({ length: R }, (_, i) => `resident-${String(i).padStart(5, "0")}`);
    await pool(names, RESIDENT_CONCURRENCY, (n) => control.apply(objectPath(configMaps, VIA, n), configMap(VIA, n, "r", false), FIELD_MANAGER).then(() => undefined));
    const propagated = async (r: KubeRest) =>
      (await r.get<{ items: unknown[] }>(collectionPath(configMaps, VIA), { labelSelector: `${PROPAGATED},!${SAMPLE}`, resourceVersion: "0" })).items.length;
    for (;;) {
      const counts = await Promise.all(members.map((m) => propagated(m.rest)));
      if (counts.every((c) => c >= R)) break;
      if (performance.now() - t0 > 10 * timeoutMs) {
        console.log(`resident templates: only ${counts.join(" / ")} of ${R} in the members after ${secs(performance.now() - t0)}; measuring anyway`);
        break;
      }
      await sleep(500);
    }
    console.log(`${R} resident templates in both members after ${secs(performance.now() - t0)}`);
    await settleControlPlane(f.flotilla);
    rows.push(...(await measurePhase(f, `${R} resident`, N, sides)));
  }

  console.log("");
  console.log("single change → watch event in every member (ms; ratio = Flotilla / direct)");
  for (const line of formatTable(rows)) console.log(`  ${line}`);
  console.log("the floor: the control cluster's write and watch, then the members' (ms; ratio = Flotilla / relay)");
  for (const line of formatTable(relayed, RELAY_LABELS)) console.log(`  ${line}`);
});
