// Benchmark of multi-cluster services (issue 40, the MCS API): from an endpoint change in one
// member to the imported EndpointSlice in every other member, against the member's own
// EndpointSlice update for the very same change. For each fleet size in --members (default 2,10),
// in turn: a fleet of N members and Flotilla; in member1 a Deployment `web` (kwok runs its pods
// Ready, with IPs) behind a Service `web` with a ServiceExport; K times (--changes, default 30) the
// Deployment is scaled up or down by one, alternately, and the bench times from the scale request:
//   own:    until a watch on member1's own EndpointSlice (kube-controller-manager's) shows the new
//           ready endpoint set (the baseline);
//   import: until a watch on the imported slice (source-cluster=member1) in every other member
//           shows the same set (the path: agent's informer → ServiceExportReport → the control
//           plane's MemberServiceExport record → every replica's informer → the import Work →
//           each agent's apply).
// p50/p99/max of own, of the slowest member per change, and the ratios. Writes per change from
// each apiserver's apiserver_request_total (Leases left out) over the K changes; member1's are
// also counted over K changes of an unexported twin (`plain`), measured first, so what Flotilla
// adds there is the difference. Never fails on a time: exits non-zero only when a fleet size could
// not complete (no fleet, or a change not seen within --timeout seconds), saying what.
//   node test/bench/mcs.ts [--members N[,N…]] [--changes K] [--timeout S] [--jitter MS] [--keep-logs]
import { parseArgs } from "node:util";
import { formatRun, type McsRun, summaryLine } from "./mcs-figures.ts";
import { runMcs } from "./mcs-run.ts";

const { values } = parseArgs({
  options: {
    members: { type: "string", default: "2,10" },
    changes: { type: "string", default: "30" },
    timeout: { type: "string", default: "60" },
    jitter: { type: "string", default: "500" },
    "keep-logs": { type: "boolean", default: false },
  },
});
const sizes = values.members.split(",").map(Number);
const changes = Number(values.changes);
const timeoutMs = Number(values.timeout) * 1000;
const jitterMs = Number(values.jitter);
if (sizes.some((n) => !Number.isInteger(n) || n < 2)) throw new Error("--members wants integers ≥ 2, comma-separated");
for (const [flag, v] of [["changes", changes], ["timeout", timeoutMs]] as const) {
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${flag} wants a positive integer`);
}
if (!Number.isInteger(jitterMs) || jitterMs < 0) throw new Error("--jitter wants a whole number of ms");

const runs: McsRun[] = [];
const failures: string[] = [];
for (const members of sizes) {
  try {
    const run = await runMcs({ members, changes, timeoutMs, jitterMs, keepLogs: values["keep-logs"] });
    runs.push(run);
    for (const line of formatRun(run)) console.log(line);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    failures.push(`${members} members: ${why}`);
    console.error(`${members} members could not complete: ${why}`);
  }
}
if (runs.length > 0) console.log(summaryLine(runs));
for (const f of failures) console.log(`not completed: ${f}`);
process.exit(failures.length > 0 ? 1 : 0);
