// Benchmark of single-change latency: the time from one write to the watch event it causes in
// every member, through Flotilla against the same write made directly in the members.
// - Flotilla: a ConfigMap template is created, updated (data.v changes) and deleted in the
//   control cluster under a PropagationPolicy; each is timed until every member's watch shows it
//   (ADDED with the value, MODIFIED with the new value, DELETED).
// - Direct: the same three writes, sent to every member at once from this process, each timed to
//   the last member's own watch event.
// ConfigMaps, because no member controller acts on them: the figure is the pipeline's alone.
// Samples alternate which side goes first. Both sides are measured on an idle fleet, then with
// --resident R other templates propagated and resident (the direct side then runs against
// members that hold those R objects too). Prints p50/p99 per operation and their ratios
// Flotilla / direct. Never fails on a time: a change not seen within --timeout seconds is
// counted as missed.
//   node test/bench/latency.ts [--samples N] [--resident R] [--timeout S]
import { parseArgs } from "node:util";
import { RESOURCES } from "../../shared/api/resources.ts";
import { collectionPath, KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { keepFlotillaLogs } from "./keep-logs.ts";
import { pool } from "./latency-pool.ts";
import { settleControlPlane } from "./latency-settle.ts";
import { type BenchSupervisor, superviseFlotilla } from "./latency-supervise.ts";
import { configMaps, type Expected, Sightings } from "./latency-sightings.ts";
import { formatTable, type Row } from "./latency-table.ts";

const { values } = parseArgs({
  options: {
    samples: { type: "string", default: "50" },
    resident: { type: "string", default: "1000" },
    timeout: { type: "string", default: "30" },
  },
});
const N = Number(values.samples);
const R = Number(values.resident);
const timeoutMs = Number(values.timeout) * 1000;
for (const [flag, v] of [["samples", N], ["timeout", timeoutMs]] as const) {
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${flag} wants a positive integer`);
}
if (!Number.isInteger(R) || R < 0) throw new Error("--resident wants an integer ≥ 0");

const FIELD_MANAGER = "flotilla-bench";
/** Templates in the control cluster (propagated to the same namespace in the members). */
const VIA = "latency";
/** Where the direct writes go, in the members. */
const DIRECT = "latency-direct";
/** The policy's selector: samples and resident templates. */
const PROPAGATED = "flotilla-latency";
/** What the members' watches select: the samples only, not the resident templates. */
const SAMPLE = "flotilla-latency-sample";
const RESIDENT_CONCURRENCY = 16;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function configMap(namespace: string, name: string, value: string, sample: boolean): unknown {
  const labels = { [PROPAGATED]: "true", ...(sample ? { [SAMPLE]: "true" } : {}) };
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace, labels }, data: { v: value } };
}

let fleet: Fleet | undefined;
let flotilla: Flotilla | undefined;
let supervisor: BenchSupervisor | undefined;
const rests: KubeRest[] = [];
const sightings: Sightings[] = [];
let failed = false;
try {
  const tStart = performance.now();
  fleet = await startFleet({ members: 2 });
  // One object created and deleted per cycle, many cycles a minute: the brake (--deletion-budget-*) would hold them.
  flotilla = await startFlotilla(fleet, { logLevel: "warn", controlPlaneArgs: ["--deletion-budget-percent=100"] });
  supervisor = superviseFlotilla(flotilla);
  console.log(`fleet: control + 2 members, Flotilla up in ${secs(performance.now() - tStart)}; ${N} samples per phase, then ${R} resident templates`);
  const rest = (kc: ReturnType<Fleet["control"]["kubeConfig"]>) => {
    const r = new KubeRest(kc, { maxSockets: RESIDENT_CONCURRENCY + 4 });
    rests.push(r);
    return r;
  };
  const control = rest(fleet.control.kubeConfig());
  const members = fleet.members.map((m) => ({ name: m.name, rest: rest(m.kubeConfig()), kc: m.kubeConfig() }));
  for (const m of members) {
    const s = new Sightings(m.name, m.kc, m.rest, SAMPLE);
    sightings.push(s);
    await s.start();
    await m.rest.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: DIRECT } } });
  }
  await control.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: VIA } } });
  await control.apply(objectPath(RESOURCES.propagationPolicy, VIA, "latency"), {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "PropagationPolicy",
    metadata: { name: "latency", namespace: VIA },
    spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", labelSelector: { matchLabels: { [PROPAGATED]: "true" } } }] },
  }, FIELD_MANAGER);

  /** Sends a write and resolves with the ms until every member showed it, or undefined. */
  const timed = async (expected: Expected, write: () => Promise<unknown>): Promise<number | undefined> => {
    const seen = sightings.map((s) => s.expect(expected, timeoutMs));
    const t0 = performance.now();
    await write();
    const at = await Promise.all(seen);
    return at.some((t) => t === undefined) ? undefined : Math.max(...(at as number[])) - t0;
  };
  type Side = "flotilla" | "direct";
  const ops = ["create", "update", "delete"] as const;
  /** Create, update and delete one object on one side; the ms of each, undefined where missed. */
  const cycle = async (side: Side, name: string): Promise<(number | undefined)[]> => {
    const namespace = side === "flotilla" ? VIA : DIRECT;
    const targets = side === "flotilla" ? [control] : members.map((m) => m.rest);
    const path = objectPath(configMaps, namespace, name);
    const put = (v: string) => () => Promise.all(targets.map((r) => r.apply(path, configMap(namespace, name, v, true), FIELD_MANAGER)));
    const created = await timed({ namespace, name, value: "1" }, put("1"));
    const updated = await timed({ namespace, name, value: "2" }, put("2"));
    const deleted = await timed({ namespace, name, deleted: true }, () => Promise.all(targets.map((r) => r.delete(path))));
    return [created, updated, deleted];
  };

  const rows: Row[] = [];
  const phase = async (label: string) => {
    const slug = label.replace(/[^a-z0-9]+/g, "-");
    // One unmeasured cycle per side: the first of a kind starts informers and creates the
    // members' namespace, which a single change in a running fleet does not pay.
    await cycle("flotilla", `warmup-${slug}`);
    await cycle("direct", `warmup-${slug}`);
    const mine = ops.map((op): Row => ({ phase: label, op, flotilla: [], direct: [], flotillaMissed: 0, directMissed: 0 }));
    for (let i = 0; i < N; i++) {
      const order: Side[] = i % 2 === 0 ? ["flotilla", "direct"] : ["direct", "flotilla"];
      for (const side of order) {
        const times = await cycle(side, `sample-${slug}-${i}`);
        times.forEach((t, j) => {
          const row = mine[j] as Row;
          if (t === undefined) row[`${side}Missed`]++;
          else row[side].push(t);
        });
      }
    }
    rows.push(...mine);
    // Printed at once too: a later phase that fails does not take this one's figures with it.
    console.log(`phase ${label}:${(supervisor as BenchSupervisor).restartsSince()}`);
    for (const line of formatTable(mine)) console.log(`  ${line}`);
  };

  await phase("idle");

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
    await settleControlPlane(flotilla);
    await phase(`${R} resident`);
  }

  console.log("");
  console.log("single change → watch event in every member (ms; ratio = Flotilla / direct)");
  for (const line of formatTable(rows)) console.log(`  ${line}`);
} catch (err) {
  failed = true;
  console.error(err instanceof Error ? err.message : err);
  await keepFlotillaLogs(fleet);
} finally {
  supervisor?.stop();
  for (const s of sightings) s.stop();
  for (const r of rests) r.close();
  await flotilla?.stop();
  await fleet?.stop();
}
if (failed) process.exitCode = 1;
