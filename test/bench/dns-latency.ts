// Benchmark of multi-cluster DNS: how long after a member's load balancer moves to a new address
// CoreDNS answers it. A 2-member fleet with Flotilla, real ExternalDNS and CoreDNS (test/env);
// a LoadBalancer Service web (1-replica Deployment behind it) placed on both members, and a
// ServiceDNSRecord for it. N times (default 100), member1's cloud moves web's load balancer
// (test/env/load-balancers.ts reassign) and the benchmark times, from just before the move:
//   member: until a watch on member1's Service sees the new address (the baseline: what any
//           client of the member itself could see, no Flotilla, no DNS);
//   dns:    until CoreDNS answers the new address for member1's zone name (polled every --poll ms
//           with a real DNS question, a fresh one each time, so no cache answers).
// The path between them: the agent's status report, the control plane's binding status, its DNS
// controller's DNSEndpoint write, ExternalDNS's next sync (every --interval), etcd, CoreDNS.
// Prints p50, p99 and max of both and of their difference. Never fails on a time: exits non-zero
// only when an answer never comes within --timeout seconds, saying which.
// Each change waits a random 0..--jitter ms first (default 1000), so changes do not all land at
// the same phase of ExternalDNS's once-a-second loop.
//   node test/bench/dns-latency.ts [--changes N] [--interval 500ms] [--poll MS] [--jitter MS] [--timeout S]
// (ExternalDNS checks once a second whether --interval has passed: 500ms means a sync every second,
// 1s a sync every 2 s; see test/env/dns.ts.)
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { type KubeConfig, Watch } from "@kubernetes/client-node";
import type { Cluster } from "../env/cluster.ts";
import { queryAt } from "../env/dns-client.ts";
import { type DnsServer, startDns } from "../env/dns.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import type { LoadBalancers } from "../env/load-balancers.ts";
import { waitFor } from "../env/wait.ts";
import { apply, deploymentJson, kubectl } from "../e2e/helpers.ts";
import { quantile } from "./fleet-figures.ts";
import { keepFlotillaLogs } from "./keep-logs.ts";

const { values } = parseArgs({
  options: {
    changes: { type: "string", default: "100" },
    interval: { type: "string", default: "500ms" },
    poll: { type: "string", default: "10" },
    jitter: { type: "string", default: "1000" },
    timeout: { type: "string", default: "60" },
  },
});
const N = Number(values.changes);
const POLL_MS = Number(values.poll);
const JITTER_MS = Number(values.jitter);
const timeoutMs = Number(values.timeout) * 1000;
for (const [flag, v] of [["changes", N], ["poll", POLL_MS], ["timeout", timeoutMs]] as const) {
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${flag} wants a positive integer`);
}
if (!Number.isInteger(JITTER_MS) || JITTER_MS < 0) throw new Error("--jitter wants a whole number of ms");

const NS = "bench-dns";
// KubeFed's names: <service>.<namespace>.<Domain object>.svc.<zone>.<region>.<domain>; member1 is eu/eu-1.
const ZONE_NAME = `web.${NS}.example.svc.eu-1.eu.example.com`;

const manifests = [
  { apiVersion: "multiclusterdns.flotilla.dev/v1alpha1", kind: "Domain", metadata: { name: "example" }, domain: "example.com" },
  { apiVersion: "v1", kind: "Service", metadata: { name: "web", namespace: NS }, spec: { type: "LoadBalancer", selector: { app: "web" }, ports: [{ port: 80, targetPort: 80 }] } },
  // Every Deployment and Service of the namespace, on every member.
  { apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "all", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment" }, { apiVersion: "v1", kind: "Service" }] } },
  { apiVersion: "multiclusterdns.flotilla.dev/v1alpha1", kind: "ServiceDNSRecord", metadata: { name: "web", namespace: NS }, spec: { domainRef: "example" } },
];

/** CoreDNS's A answer for a name, sorted ("" when none). */
async function answer(dns: DnsServer, name: string): Promise<string> {
  const r = await queryAt(dns.server, name, "A");
  return r.answers.filter((a) => a.type === "A").map((a) => a.data).sort().join(",");
}

/**
 * A watch on one object that notes when each value `extract` reads from it first appears;
 * seen(value) resolves with that Date.now().
 */
function firstSightings(kc: KubeConfig, path: string, name: string, extract: (obj: unknown) => string[]): { seen(value: string): Promise<number>; stop(): void } {
  const waiting = new Map<string, (at: number) => void>();
  const seenAt = new Map<string, number>();
  let request: { abort(): void } | undefined;
  let stopped = false;
  const started = new Watch(kc)
    .watch(
      path,
      { fieldSelector: `metadata.name=${name}` },
      (_phase: string, obj: unknown) => {
        const at = Date.now();
        for (const v of extract(obj)) {
          if (seenAt.has(v)) continue;
          seenAt.set(v, at);
          waiting.get(v)?.(at);
        }
      },
      (err: unknown) => {
        if (!stopped && err !== undefined && err !== null) console.error(`watch of ${path} ended: ${String(err)}`);
      },
    )
    .then((r) => (request = r));
  return {
    seen: async (value) => {
      await started;
      const at = seenAt.get(value);
      return at ?? new Promise((resolve) => waiting.set(value, resolve));
    },
    stop: () => {
      stopped = true;
      request?.abort();
    },
  };
}

/** The load-balancer addresses a member Service reports. */
const serviceAddresses = (obj: unknown) => ((obj as { status?: { loadBalancer?: { ingress?: { ip?: string }[] } } }).status?.loadBalancer?.ingress ?? []).flatMap((i) => (i.ip ? [i.ip] : []));
/** The load-balancer addresses member1's entry of a ResourceBinding's aggregatedStatus carries. */
const bindingAddresses = (obj: unknown) =>
  ((obj as { status?: { aggregatedStatus?: { clusterName: string; status?: { loadBalancer?: { ingress?: { ip?: string }[] } } }[] } }).status?.aggregatedStatus ?? [])
    .filter((e) => e.clusterName === "member1")
    .flatMap((e) => serviceAddresses(e));
/** The targets of the zone name in a DNSEndpoint, joined. */
const zoneTargets = (obj: unknown) => ((obj as { spec?: { endpoints?: { dnsName: string; targets?: string[] }[] } }).spec?.endpoints ?? []).filter((e) => e.dnsName === ZONE_NAME).map((e) => (e.targets ?? []).join(","));

const ms = (x: number) => `${Math.round(x)} ms`;
const line = (what: string, xs: number[]) => `${what.padEnd(8)} p50 ${ms(quantile(xs, 0.5))}, p99 ${ms(quantile(xs, 0.99))}, max ${ms(Math.max(...xs))}, min ${ms(Math.min(...xs))}`;

let fleet: Fleet | undefined;
let flotilla: Flotilla | undefined;
let dns: DnsServer | undefined;
let failed = false;
try {
  const t0 = Date.now();
  fleet = await startFleet({ members: 2 });
  flotilla = await startFlotilla(fleet);
  dns = await startDns({ dir: join(fleet.root, "dns"), controlKubeconfigPath: fleet.control.kubeconfigPath, interval: values.interval });
  console.log(`fleet, Flotilla, ExternalDNS (--interval=${values.interval}) and CoreDNS (${dns.server}) up in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await kubectl(fleet.control, ["create", "namespace", NS]);
  await apply(fleet.control, deploymentJson("web", NS, 1));
  for (const m of manifests) await apply(fleet.control, JSON.stringify(m));

  const member1 = fleet.members[0] as Cluster;
  const lb = member1.loadBalancers as LoadBalancers;
  const first = await waitFor(async () => lb.addressOf(NS, "web"), { what: "member1's Service web has an address", timeoutMs: 60_000, intervalMs: 100 });
  await waitFor(async () => (await answer(dns as DnsServer, ZONE_NAME)) === first, { what: `CoreDNS answers ${ZONE_NAME} → ${first}`, timeoutMs: 120_000, intervalMs: 200 });
  console.log(`${ZONE_NAME} answers ${first}; moving member1's load balancer ${N} times`);

  const memberWatch = firstSightings(member1.kubeConfig(), `/api/v1/namespaces/${NS}/services`, "web", serviceAddresses);
  const bindingWatch = firstSightings(fleet.control.kubeConfig(), `/apis/flotilla.dev/v1alpha1/namespaces/${NS}/resourcebindings`, "web-service", bindingAddresses);
  const endpointWatch = firstSightings(fleet.control.kubeConfig(), `/apis/multiclusterdns.flotilla.dev/v1alpha1/namespaces/${NS}/dnsendpoints`, "web", zoneTargets);
  const member: number[] = [];
  const bound: number[] = [];
  const written: number[] = [];
  const served: number[] = [];
  try {
    for (let i = 0; i < N; i++) {
      // A change right after the last answer would land at the same phase of ExternalDNS's
      // once-a-second loop every time (and of the control plane's periodic work): a random pause
      // spreads the changes over those periods, as real ones are.
      await sleep(Math.random() * JITTER_MS);
      const startWall = Date.now();
      const ip = await lb.reassign(NS, "web");
      const seen = memberWatch.seen(ip).then((at) => at - startWall);
      const binding = bindingWatch.seen(ip).then((at) => at - startWall);
      const endpoint = endpointWatch.seen(ip).then((at) => at - startWall);
      await waitFor(async () => (await answer(dns as DnsServer, ZONE_NAME)) === ip, { what: `change ${i + 1}: CoreDNS answers ${ZONE_NAME} → ${ip}`, timeoutMs, intervalMs: POLL_MS });
      served.push(Date.now() - startWall);
      member.push(await seen);
      bound.push(await binding);
      written.push(await endpoint);
      if ((i + 1) % 10 === 0) console.log(`${i + 1}/${N}: member ${ms(member.at(-1) ?? 0)}, binding ${ms(bound.at(-1) ?? 0)}, DNSEndpoint ${ms(written.at(-1) ?? 0)}, CoreDNS ${ms(served.at(-1) ?? 0)}`);
    }
  } finally {
    memberWatch.stop();
    bindingWatch.stop();
    endpointWatch.stop();
  }
  console.log(`load-balancer address change on member1 → seen, over ${N} changes (zone name ${ZONE_NAME}):`);
  console.log(line("member", member) + "   baseline: a watch on the member's Service sees the new address");
  console.log(line("binding", bound) + "   the ResourceBinding's aggregatedStatus has it (agent report, status write)");
  console.log(line("endpoint", written) + "   the control plane's DNSEndpoint has it (+ the DNS controller)");
  console.log(line("dns", served) + `   CoreDNS answers it (+ ExternalDNS's sync every ${values.interval}, etcd)`);
} catch (err) {
  failed = true;
  console.error(err instanceof Error ? err.message : err);
  await keepFlotillaLogs(fleet);
} finally {
  await dns?.stop();
  await flotilla?.stop();
  await fleet?.stop();
}
process.exit(failed ? 1 : 0);
