// bench:fleet's figures and issue 12's goals for them: pure, so the printed lines are tested.

/** One run at N agents: exactly the JSON fields issue 12 names. */
export interface FleetFigures {
  connectAllS: number;
  fanoutP50Ms: number;
  fanoutP99Ms: number;
  fanoutMaxMs: number;
  updateP99Ms: number;
  controlWritesPerTemplate: number;
  heartbeatWritesPerS: number;
  rssMiB: number;
  cpuS: number;
  reconnectAllS: number;
  reconnectManifestBytes: number;
  restartManifestBytes: number;
  /** Issue 25: during the storm, leader changes and the longest gap between the leader's Lease renewals (lease-watch.ts). */
  stormLeaderChanges: number;
  stormRenewGapMaxMs: number;
  /** The most Clusters Ready=False at once during the storm (goal 0: nothing was wrong with them). */
  stormNotReadyMax: number;
}

/** The memory mode: T templates × N clusters held by the control plane. */
export interface MemoryFigures {
  agents: number;
  templates: number;
  works: number;
  /** From the first template's create until every agent acknowledged all T. */
  loadS: number;
  rssMiB: number;
  cpuS: number;
}

/** The q-quantile (0..1) by the nearest-rank method; NaN for no values. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] as number;
}

/** Per agent, how long after t0 (epoch ms) the Work's first hash other than `previous` arrived; undefined: not yet. */
export function arrivalDelays(receipts: { hash: string; at: number }[][], t0: number, previous?: (agent: number) => string | undefined): (number | undefined)[] {
  return receipts.map((list, i) => {
    const before = previous?.(i);
    const r = list.find((x) => x.hash !== before && x.at >= t0 - 1);
    return r === undefined ? undefined : r.at - t0;
  });
}

export const GOALS = {
  controlWritesPerTemplate: 3,
  fanoutP99Ms: 2_000,
  reconnectAllS: 30,
  memoryMiB: 4 * 1024,
  /** Heartbeat writes per second per agent: N/40. */
  heartbeatWritesPerAgentS: 1 / 40,
} as const;

const verdict = (ok: boolean) => (ok ? "met" : "NOT met");
/** A goal stated for 10,000 agents is judged only there; below it the line says where the figure stands. */
const atScale = (ok: boolean, n: number) => (n >= 10_000 ? verdict(ok) : `at ${n}: ${ok ? "within" : "over"}`);
const n1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : String(x));
const n2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : String(x));
const ms = (x: number) => (Number.isFinite(x) ? `${Math.round(x)} ms` : String(x));

/** The line printed for one N: each figure next to its goal. */
export function figuresLine(n: number, f: FleetFigures): string {
  const hbGoal = n * GOALS.heartbeatWritesPerAgentS;
  return [
    `N=${n}:`,
    `connect+sync all ${n1(f.connectAllS)} s;`,
    `fanout p50 ${ms(f.fanoutP50Ms)}, p99 ${ms(f.fanoutP99Ms)} (goal < ${ms(GOALS.fanoutP99Ms)} at 10,000; ${atScale(f.fanoutP99Ms < GOALS.fanoutP99Ms, n)}), max ${ms(f.fanoutMaxMs)};`,
    `update p99 ${ms(f.updateP99Ms)};`,
    `control writes/template ${n2(f.controlWritesPerTemplate)} (goal ≤ ${GOALS.controlWritesPerTemplate}: ${verdict(f.controlWritesPerTemplate <= GOALS.controlWritesPerTemplate)});`,
    `heartbeat writes/s ${n2(f.heartbeatWritesPerS)} (goal ≤ N/40 = ${n2(hbGoal)}: ${verdict(f.heartbeatWritesPerS <= hbGoal)});`,
    `reconnect all ${n1(f.reconnectAllS)} s (goal < ${GOALS.reconnectAllS} s at 10,000; ${atScale(f.reconnectAllS < GOALS.reconnectAllS, n)}), manifest bytes ${f.reconnectManifestBytes} (goal 0: ${verdict(f.reconnectManifestBytes === 0)});`,
    `storm: leader changes ${f.stormLeaderChanges} (goal 0: ${verdict(f.stormLeaderChanges === 0)}), longest gap between Lease renewals ${ms(f.stormRenewGapMaxMs)}, Clusters NotReady at once ${f.stormNotReadyMax} (goal 0: ${verdict(f.stormNotReadyMax === 0)});`,
    `restart manifest bytes ${f.restartManifestBytes} (goal 0: ${verdict(f.restartManifestBytes === 0)});`,
    `control plane RSS ${n1(f.rssMiB)} MiB, CPU ${n1(f.cpuS)} s`,
  ].join(" ");
}

/** The line printed for the memory mode. */
export function memoryLine(f: MemoryFigures): string {
  return (
    `N=${f.agents} × T=${f.templates}: ${f.works} Works acknowledged in ${n1(f.loadS)} s; ` +
    `control plane RSS ${n1(f.rssMiB)} MiB (goal < ${GOALS.memoryMiB} MiB for 1,000,000 Works: ${f.works >= 1_000_000 ? verdict(f.rssMiB < GOALS.memoryMiB) : "not judged below 1,000,000"}), CPU ${n1(f.cpuS)} s`
  );
}
