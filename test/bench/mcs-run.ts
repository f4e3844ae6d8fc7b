// One fleet size of bench:mcs: a fleet of N members and Flotilla; in member1 a Deployment `web`
// behind a Service `web` with a ServiceExport, and its unexported twin `plain`; K endpoint changes
// of each (the Deployment scaled 2 → 3 → 2 …, kwok makes the new pod Running and Ready with an
// IP; a scale-down marks the deleted pod not ready at once), timed from the scale request until a
// watch on member1's own EndpointSlices, and on the imported ones (source-cluster=member1) in every
// other member, shows the new ready set. Between changes everything settles: the source has only
// ready endpoints and every import has all of them. Everything it started is stopped, whatever happens.
import { setTimeout as sleep } from "node:timers/promises";
import { MCS_API_VERSION, MCS_SERVICE_NAME_LABEL, MCS_SOURCE_CLUSTER_LABEL, KUBE_SERVICE_NAME_LABEL } from "../../shared/api/mcs.ts";
import { KubeRest, objectPath } from "../../shared/kube-rest.ts";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { waitFor } from "../env/wait.ts";
import { type WriteCounts, writesDiff, writesOf } from "./apiserver-metrics.ts";
import { keepFlotillaLogs } from "./keep-logs.ts";
import { superviseFlotilla, type BenchSupervisor } from "./latency-supervise.ts";
import { keySize } from "./mcs-endpoints.ts";
import { type McsRun, withoutLeases, writesPerChange } from "./mcs-figures.ts";
import { SliceWatch } from "./mcs-watch.ts";

export interface McsOptions {
  members: number;
  changes: number;
  timeoutMs: number;
  jitterMs: number;
  keepLogs: boolean;
}

const NS = "bench-mcs";
const FIELD_MANAGER = "flotilla-bench";
/** Replicas between changes; a change scales to LOW + 1 and back. */
const LOW = 2;
const deployments = { apiVersion: "apps/v1", kind: "Deployment", plural: "deployments", namespaced: true };
const services = { apiVersion: "v1", kind: "Service", plural: "services", namespaced: true };
const serviceExports = { apiVersion: MCS_API_VERSION, kind: "ServiceExport", plural: "serviceexports", namespaced: true };

const deployment = (name: string) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, namespace: NS },
  spec: { replicas: LOW, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "nginx", ports: [{ containerPort: 8080 }] }] } } },
});
const service = (name: string) => ({ apiVersion: "v1", kind: "Service", metadata: { name, namespace: NS }, spec: { selector: { app: name }, ports: [{ name: "http", port: 80, targetPort: 8080 }] } });

/** Runs one fleet size; throws, saying what, when it could not complete (the logs kept). */
export async function runMcs(opts: McsOptions): Promise<McsRun> {
  let fleet: Fleet | undefined;
  let flotilla: Flotilla | undefined;
  let supervisor: BenchSupervisor | undefined;
  const rests: KubeRest[] = [];
  const watches: SliceWatch[] = [];
  let failed = false;
  try {
    const t0 = performance.now();
    fleet = await startFleet({ members: opts.members });
    const fleetUp = performance.now();
    flotilla = await startFlotilla(fleet, { logLevel: "warn" });
    supervisor = superviseFlotilla(flotilla);
    console.log(`${opts.members} members: fleet up in ${((fleetUp - t0) / 1000).toFixed(1)} s, Flotilla in ${((performance.now() - fleetUp) / 1000).toFixed(1)} s more`);
    const restOf = (c: Cluster) => {
      const r = new KubeRest(c.kubeConfig(), { maxSockets: 8 });
      rests.push(r);
      return r;
    };
    const control = restOf(fleet.control);
    const [m1, ...others] = fleet.members as [Cluster, ...Cluster[]];
    const m1Rest = restOf(m1);
    const rests1 = new Map<string, KubeRest>([["control", control], ["member1", m1Rest]]);
    // Imports go only where the namespace is (KEP-1645 namespace sameness).
    for (const m of fleet.members) {
      const r = m === m1 ? m1Rest : restOf(m);
      rests1.set(m.name, r);
      await r.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } } });
    }
    for (const name of ["web", "plain"]) {
      await m1Rest.apply(objectPath(deployments, NS, name), deployment(name), FIELD_MANAGER);
      await m1Rest.apply(objectPath(services, NS, name), service(name), FIELD_MANAGER);
    }
    await m1Rest.apply(objectPath(serviceExports, NS, "web"), { apiVersion: MCS_API_VERSION, kind: "ServiceExport", metadata: { name: "web", namespace: NS } }, FIELD_MANAGER);

    const watch = (c: Cluster, selector: string) => {
      const w = new SliceWatch(c.name, c.kubeConfig(), rests1.get(c.name) as KubeRest, NS, selector);
      watches.push(w);
      return w;
    };
    const own = { web: watch(m1, `${KUBE_SERVICE_NAME_LABEL}=web`), plain: watch(m1, `${KUBE_SERVICE_NAME_LABEL}=plain`) };
    const imports = others.map((m) => watch(m, `${MCS_SERVICE_NAME_LABEL}=web,${MCS_SOURCE_CLUSTER_LABEL}=member1`));
    await Promise.all(watches.map((w) => w.start()));

    // Settled: the source holds exactly `replicas` endpoints, all ready (no terminating one left),
    // and every import holds the same endpoints with the same conditions.
    const settled = (side: "web" | "plain", replicas: number, what: string, timeoutMs: number) =>
      waitFor(
        async () => {
          const src = own[side];
          const full = src.full();
          if (keySize(src.ready()) !== replicas || keySize(full) !== replicas) return undefined;
          return side === "plain" || imports.every((w) => w.full() === full) ? true : undefined;
        },
        { what, timeoutMs, intervalMs: 50 },
      );
    await settled("plain", LOW, `member1's ${LOW} endpoints of plain`, 120_000);
    await settled("web", LOW, `member1's ${LOW} endpoints of web, imported in every other member`, 120_000);

    let replicas = { web: LOW, plain: LOW };
    /** One change: the scale, timed to member1's own slices and, for web, to every import. */
    const change = async (side: "web" | "plain", label: string): Promise<{ own: number; members: number[] }> => {
      await sleep(Math.random() * opts.jitterMs);
      const before = own[side].ready();
      const target = replicas[side] === LOW ? LOW + 1 : LOW;
      const start = performance.now();
      await m1Rest.mergePatch(objectPath(deployments, NS, side), { spec: { replicas: target } }, FIELD_MANAGER);
      replicas = { ...replicas, [side]: target };
      const seen = await own[side].firstSince(start, (k) => k !== before && keySize(k) === target, opts.timeoutMs);
      if (seen === undefined) throw new Error(`${label}: member1's own EndpointSlice of ${side} did not show ${target} ready endpoints within ${opts.timeoutMs / 1000} s`);
      const members: number[] = [];
      if (side === "web") {
        const at = await Promise.all(imports.map((w) => w.firstSince(start, (k) => k === seen.key, opts.timeoutMs)));
        at.forEach((s, i) => {
          if (s === undefined) throw new Error(`${label}: ${imports[i]?.cluster}'s imported slice did not show member1's new endpoints within ${opts.timeoutMs / 1000} s`);
          members.push(s.at - start);
        });
      }
      await settled(side, target, `${label}: settled`, opts.timeoutMs);
      return { own: seen.at - start, members };
    };

    // One unmeasured change each: the first of a kind warms caches and connections.
    await change("plain", "warm-up of plain");
    await change("web", "warm-up of web");

    const names = [...rests1.keys()];
    const counters = () => writesOf(new Map(names.map((n) => [n, rests1.get(n) as KubeRest])));
    let w0 = await counters();
    for (let i = 0; i < opts.changes; i++) await change("plain", `plain change ${i + 1}`);
    const plainWrites: Map<string, WriteCounts> = writesDiff(w0, await counters());

    const result: McsRun = { members: opts.members, own: [], slowest: [], perMember: new Map(others.map((m) => [m.name, []])), writes: writesPerChange(new Map(), new Map(), 1), breakdown: new Map() };
    w0 = await counters();
    for (let i = 0; i < opts.changes; i++) {
      const c = await change("web", `change ${i + 1}`);
      result.own.push(c.own);
      result.slowest.push(Math.max(...c.members));
      c.members.forEach((t, j) => result.perMember.get(others[j]?.name ?? "")?.push(t));
      if ((i + 1) % 10 === 0) console.log(`  ${i + 1}/${opts.changes}: own ${Math.round(c.own)} ms, slowest import ${Math.round(Math.max(...c.members))} ms`);
    }
    const webWrites = writesDiff(w0, await counters());
    result.writes = writesPerChange(webWrites, plainWrites, opts.changes);
    for (const n of ["control", "member1"]) result.breakdown.set(n, withoutLeases(webWrites.get(n) ?? new Map()));
    result.breakdown.set("member1 (unexported twin)", withoutLeases(plainWrites.get("member1") ?? new Map()));
    const m2 = others[0]?.name ?? "";
    result.breakdown.set(m2, withoutLeases(webWrites.get(m2) ?? new Map()));
    const restarts = supervisor.restartsSince();
    if (restarts !== "") console.log(`  note:${restarts}`);
    return result;
  } catch (err) {
    failed = true;
    await keepFlotillaLogs(fleet, { clusters: true });
    throw err;
  } finally {
    if (!failed && opts.keepLogs) await keepFlotillaLogs(fleet, { clusters: true });
    supervisor?.stop();
    for (const w of watches) w.stop();
    for (const r of rests) r.close();
    await flotilla?.stop();
    await fleet?.stop();
  }
}
