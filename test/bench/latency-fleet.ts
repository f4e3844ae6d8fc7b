// What the single-change latency benchmarks share (bench:latency, bench:rollout): their flags, the
// fleet (control + 2 members, Flotilla supervised, logs kept on a failure), a watch on the sample
// ConfigMaps in every member, and the measurement: one sample ConfigMap created, updated (data.v
// changes) and deleted, each timed until every member's watch shows it, on two sides that take
// turns going first.
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { RESOURCES } from "../../shared/api/resources.ts";
import { KubeRest, objectPath } from "../../shared/kube-rest.ts";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { AGENT_OPTIONS, type AgentOptions, describeAgents } from "./agent-options.ts";
import { benchFailed } from "./keep-logs.ts";
import { type BenchSupervisor, superviseFlotilla } from "./latency-supervise.ts";
import { configMaps, type Expected, Sightings } from "./latency-sightings.ts";
import { formatTable, type Row, type TableLabels } from "./latency-table.ts";

export const FIELD_MANAGER = "flotilla-bench";
/** The policies' selector: samples (and bench:latency's resident templates). */
export const PROPAGATED = "flotilla-latency";
/** What the members' watches select: the samples only. */
export const SAMPLE = "flotilla-latency-sample";

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The flags: --samples N and --timeout S (positive integers), and the benchmark's own (flag → default), as numbers. */
export function latencyArgs(samples: number, extra: Record<string, string> = {}): { n: number; timeoutMs: number; values: Record<string, number>; agentValues: { bundle: boolean; "agent-node-args": string } } {
  const options: ParseArgsOptionsConfig = { ...AGENT_OPTIONS };
  for (const [flag, d] of Object.entries({ samples: String(samples), timeout: "30", ...extra })) options[flag] = { type: "string", default: d };
  const parsed = parseArgs({ options }).values;
  const agentValues = { bundle: parsed.bundle === true, "agent-node-args": String(parsed["agent-node-args"] ?? "") };
  const values = Object.fromEntries(Object.entries(parsed).filter(([k]) => !(k in AGENT_OPTIONS)).map(([k, v]) => [k, Number(v)]));
  const n = values.samples as number;
  const timeoutMs = (values.timeout as number) * 1000;
  for (const [flag, v] of [["samples", n], ["timeout", timeoutMs]] as const) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`--${flag} wants a positive integer`);
  }
  return { n, timeoutMs, values, agentValues };
}

/** A sample ConfigMap (or, not `sample`, a template the members' watches do not select). */
export function configMap(namespace: string, name: string, value: string, sample = true): unknown {
  const labels = { [PROPAGATED]: "true", ...(sample ? { [SAMPLE]: "true" } : {}) };
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace, labels }, data: { v: value } };
}

/** A PropagationPolicy's spec (Flotilla's and Karmada's alike) for the sample ConfigMaps, to every cluster. */
export function samplePolicySpec(): Record<string, unknown> {
  return { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", labelSelector: { matchLabels: { [PROPAGATED]: "true" } } }] };
}

/** The ms of create, update and delete of one sample; undefined where missed. */
export type Times = (number | undefined)[];
export const OPS = ["create", "update", "delete"] as const;

export interface LatencyFleet {
  fleet: Fleet;
  flotilla: Flotilla;
  supervisor: BenchSupervisor;
  control: KubeRest;
  members: { name: string; rest: KubeRest }[];
  createNamespace(rest: KubeRest, name: string): Promise<void>;
  /** A namespace in the control cluster whose sample ConfigMaps a PropagationPolicy sends to every member. */
  propagatedNamespace(namespace: string, spec?: Record<string, unknown>): Promise<void>;
  /**
   * Creates, updates and deletes sample `name` in `namespace` through every target at once; each
   * timed to the last member's watch event. `beforeUpdate` runs, untimed, between the create and the update.
   */
  cycle(targets: KubeRest[], namespace: string, name: string, beforeUpdate?: () => Promise<void>): Promise<Times>;
  /**
   * The floor under Flotilla (issue 42): the same cycle in `namespace` (no policy selects it), each
   * write applied to the control cluster and, once the control cluster's own watch shows it, by
   * this process to every member, timed to the last member's watch event: two apiservers' writes
   * and watches in series with nothing between them.
   */
  relay(namespace: string, name: string): Promise<Times>;
}

/** Where a relayed write goes first, and the watch that says it is there. */
interface Relay {
  rest: KubeRest;
  sightings: Sightings;
}

/**
 * The sample cycle on the members' watches: creates, updates and deletes sample `name` in
 * `namespace` through every target at once, each write timed until every watch shows it
 * (undefined where one did not within timeoutMs). A waiter is registered before its write.
 */
export function sampleCycle(sightings: Sightings[], timeoutMs: number): (targets: KubeRest[], namespace: string, name: string, beforeUpdate?: () => Promise<void>, via?: Relay) => Promise<Times> {
  const timed = async (expected: Expected, write: () => Promise<unknown>): Promise<number | undefined> => {
    const seen = sightings.map((s) => s.expect(expected, timeoutMs));
    const t0 = performance.now();
    await write();
    const at = await Promise.all(seen);
    return at.some((t) => t === undefined) ? undefined : Math.max(...(at as number[])) - t0;
  };
  return async (targets, namespace, name, beforeUpdate, via) => {
    const path = objectPath(configMaps, namespace, name);
    // Relayed: to via first, then, once via's watch shows it, to the targets.
    const send = (expected: Expected, write: (r: KubeRest) => Promise<unknown>) => async () => {
      if (via !== undefined) {
        const there = via.sightings.expect(expected, timeoutMs);
        await write(via.rest);
        if ((await there) === undefined) return;
      }
      await Promise.all(targets.map(write));
    };
    const put = (v: string) => send({ namespace, name, value: v }, (r) => r.apply(path, configMap(namespace, name, v), FIELD_MANAGER));
    const created = await timed({ namespace, name, value: "1" }, put("1"));
    await beforeUpdate?.();
    const updated = await timed({ namespace, name, value: "2" }, put("2"));
    const deleted = await timed({ namespace, name, deleted: true }, send({ namespace, name, deleted: true }, (r) => r.delete(path)));
    return [created, updated, deleted];
  };
}

/**
 * Starts the fleet, runs `body`, then takes everything down; a failure is printed, the logs
 * kept, and the exit code set. `intro` gets how long Flotilla took to come up.
 */
export async function runLatencyBench(opts: { timeoutMs: number; maxSockets: number; agents?: AgentOptions; intro: (up: string) => string }, body: (f: LatencyFleet) => Promise<void>): Promise<void> {
  let fleet: Fleet | undefined;
  let flotilla: Flotilla | undefined;
  let supervisor: BenchSupervisor | undefined;
  const rests: KubeRest[] = [];
  const sightings: Sightings[] = [];
  /** Watches the cycles do not wait on (the relay's control cluster). */
  const stopAlso: Sightings[] = [];
  try {
    const tStart = performance.now();
    fleet = await startFleet({ members: 2 });
    // One object created and deleted per cycle, many cycles a minute: the brake (--deletion-budget-*) would hold them.
    flotilla = await startFlotilla(fleet, { logLevel: "warn", controlPlaneArgs: ["--deletion-budget-percent=100"], ...opts.agents });
    supervisor = superviseFlotilla(flotilla);
    console.log(`${opts.intro(secs(performance.now() - tStart))}; ${describeAgents(opts.agents ?? {})}`);
    const rest = (kc: ReturnType<Cluster["kubeConfig"]>) => {
      const r = new KubeRest(kc, { maxSockets: opts.maxSockets });
      rests.push(r);
      return r;
    };
    const control = rest(fleet.control.kubeConfig());
    const members: LatencyFleet["members"] = [];
    for (const m of fleet.members) {
      const member = { name: m.name, rest: rest(m.kubeConfig()) };
      members.push(member);
      const s = new Sightings(m.name, m.kubeConfig(), member.rest, SAMPLE);
      sightings.push(s);
      await s.start();
    }
    const createNamespace = async (r: KubeRest, name: string) => {
      await r.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name } } });
    };
    const cycle = sampleCycle(sightings, opts.timeoutMs);
    const controlSightings = new Sightings("control", fleet.control.kubeConfig(), control, SAMPLE);
    stopAlso.push(controlSightings);
    await controlSightings.start();
    await body({
      fleet,
      flotilla,
      supervisor,
      control,
      members,
      createNamespace,
      propagatedNamespace: async (namespace, spec = {}) => {
        await createNamespace(control, namespace);
        await control.apply(objectPath(RESOURCES.propagationPolicy, namespace, "latency"), {
          apiVersion: "flotilla.dev/v1alpha1",
          kind: "PropagationPolicy",
          metadata: { name: "latency", namespace },
          spec: { ...samplePolicySpec(), ...spec },
        }, FIELD_MANAGER);
      },
      cycle: (targets, namespace, name, beforeUpdate) => cycle(targets, namespace, name, beforeUpdate),
      relay: (namespace, name) => cycle(members.map((m) => m.rest), namespace, name, undefined, { rest: control, sightings: controlSightings }),
    });
  } catch (err) {
    await benchFailed(err, fleet);
  } finally {
    supervisor?.stop();
    for (const s of [...sightings, ...stopAlso]) s.stop();
    for (const r of rests) r.close();
    await flotilla?.stop();
    await fleet?.stop();
  }
}

/**
 * One phase: an unmeasured cycle per side (the first of a kind starts informers and creates the
 * members' namespace, which a single change in a running fleet does not pay), then n samples of
 * both sides, alternating which goes first. Printed at once too (with the restarts meanwhile): a
 * later phase that fails does not take this one's figures with it.
 */
export async function measurePhase(
  f: { supervisor: { restartsSince(): string } },
  phase: string,
  n: number,
  sides: { measured: (name: string) => Promise<Times>; baseline: (name: string) => Promise<Times> },
  labels?: TableLabels,
): Promise<Row[]> {
  const slug = phase.replace(/[^a-z0-9]+/g, "-");
  await sides.measured(`warmup-${slug}`);
  await sides.baseline(`warmup-${slug}`);
  const rows = OPS.map((op): Row => ({ phase, op, measured: [], baseline: [], measuredMissed: 0, baselineMissed: 0 }));
  for (let i = 0; i < n; i++) {
    const order = i % 2 === 0 ? (["measured", "baseline"] as const) : (["baseline", "measured"] as const);
    for (const side of order) {
      const times = await sides[side](`sample-${slug}-${i}`);
      times.forEach((t, j) => {
        const row = rows[j] as Row;
        if (t === undefined) {
          row[`${side}Missed`]++;
          // Which one, with when, so the logs can be searched for it.
          console.log(`  missed: ${labels?.[side] ?? side} ${OPS[j]} of sample-${slug}-${i} (${new Date().toISOString()})`);
        } else row[side].push(t);
      });
    }
  }
  console.log(`phase ${phase}:${f.supervisor.restartsSince()}`);
  for (const line of formatTable(rows, labels)) console.log(`  ${line}`);
  return rows;
}
