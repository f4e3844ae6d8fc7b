// The sample app `up` applies (test/env/sample/web.yaml) and what `up` waits for and prints
// about it: kubectl apply as a user would, the Deployment Available in every member, its DNS name.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { AppsV1Api, type V1Deployment } from "@kubernetes/client-node";
import { ensureBinaries } from "./binaries.ts";
import type { DnsServer } from "./dns.ts";
import { resolveAt } from "./dns-client.ts";
import type { Fleet } from "./fleet.ts";
import type { Flotilla } from "./flotilla.ts";
import { waitFor } from "./wait.ts";

/** The sample app `up` applies to the control cluster (see the comment at its top). */
export const sampleFile = fileURLToPath(new URL("./sample/web.yaml", import.meta.url));
const sampleNamespace = "demo";
const sampleDeployment = "web";
const sampleReplicasPerMember = 2;
/** The name the sample's ServiceDNSRecord publishes for every member (Domain object "fleet", zone example.com). */
const sampleGlobalName = "web.demo.fleet.svc.example.com";

/** `kubectl apply --server-side` of the sample, as a user would run it; its output goes to stderr. */
export async function applySample(kubeconfig: string, cacheDir: string): Promise<void> {
  const kubectl = join(await ensureBinaries(), "kubectl");
  const args = ["--kubeconfig", kubeconfig, "--cache-dir", cacheDir, "apply", "--server-side", "-f", sampleFile];
  try {
    const { stdout } = await promisify(execFile)(kubectl, args, { encoding: "utf8" });
    for (const line of stdout.trimEnd().split("\n")) console.error(`  ${line}`);
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`kubectl apply of ${sampleFile} failed: ${e.stderr?.trim() || e.message}`, { cause: err });
  }
}

/**
 * Until the sample's Deployment is Available in every member and its template in the control
 * cluster shows the fleet sum (Flotilla writes the members' status back into it).
 */
export async function waitForSample(fleet: Fleet): Promise<void> {
  const read = (api: AppsV1Api) => api.readNamespacedDeployment({ name: sampleDeployment, namespace: sampleNamespace });
  const available = (d: V1Deployment) => d.status?.conditions?.some((c) => c.type === "Available" && c.status === "True") === true;
  const members = fleet.members.map((m) => ({ name: m.name, api: m.kubeConfig().makeApiClient(AppsV1Api) }));
  const control = fleet.control.kubeConfig().makeApiClient(AppsV1Api);
  const want = sampleReplicasPerMember * fleet.members.length;
  let waitingOn = "";
  await waitFor(
    async () => {
      for (const m of members) {
        waitingOn = `Deployment ${sampleNamespace}/${sampleDeployment} Available in ${m.name}`;
        if (!available(await read(m.api))) return false;
      }
      waitingOn = `status.readyReplicas ${want} on the control cluster's Deployment ${sampleNamespace}/${sampleDeployment}`;
      return (await read(control)).status?.readyReplicas === want;
    },
    { what: "the sample app", timeoutMs: 180_000, intervalMs: 250 },
  ).catch((err: unknown) => {
    throw new Error(`${err instanceof Error ? err.message : String(err)} (still waiting for ${waitingOn})`, { cause: err });
  });
}

/** Until the sample's global name answers with one load-balancer address per member, as a DNS client sees it. */
export async function waitForSampleName(fleet: Fleet, server: string): Promise<void> {
  let last: string[] = [];
  await waitFor(
    async () => {
      last = await resolveAt(server, sampleGlobalName, "A").catch(() => []);
      return last.length === fleet.members.length;
    },
    { what: `${sampleGlobalName} at ${server}`, timeoutMs: 120_000, intervalMs: 250 },
  ).catch((err: unknown) => {
    throw new Error(`${err instanceof Error ? err.message : String(err)} (last answer: ${JSON.stringify(last)}; want one address per member)`, { cause: err });
  });
}

export function printHints(state: string, fleet: Fleet, flotilla: Flotilla, dns: DnsServer): void {
  const control = join(state, "control.kubeconfig");
  const first = fleet.members[0]?.name ?? "member1";
  console.error(
    [
      `flotilla: kubeconfigs in ${state}/: control.kubeconfig (templates and policies), ${fleet.members.map((m) => `${m.name}.kubeconfig`).join(", ")}`,
      `flotilla: pid files in ${join(state, "pids")}/, control-plane and agent logs in ${flotilla.logsDir}/, cluster logs in ${join(state, "clusters")}/<cluster>/`,
      "flotilla: try",
      `  kubectl --kubeconfig ${control} get deploy -n ${sampleNamespace} ${sampleDeployment}    # the fleet-wide sum`,
      `  kubectl --kubeconfig ${control} get rb -n ${sampleNamespace}    # one ResourceBinding per template`,
      `  kubectl --kubeconfig ${control} get clusters`,
      `  kubectl --kubeconfig ${join(state, `${first}.kubeconfig`)} get deploy,svc,cm -n ${sampleNamespace}`,
      `  FLOTILLA_STATE_DIR=${state} npx flotillactl get clusters    # also: get bindings -A, describe deploy/${sampleDeployment} -n ${sampleNamespace}, render|diff deploy/${sampleDeployment} -n ${sampleNamespace} --cluster ${first}`,
      `flotilla: multi-cluster DNS at ${dns.server} (also in ${join(state, "dns-server")}); the sample's names:`,
      `  dig @127.0.0.1 -p ${dns.port} +short ${sampleGlobalName}    # every member's load-balancer address`,
      `  dig @127.0.0.1 -p ${dns.port} +short web.demo.fleet.svc.eu.example.com    # a region; …svc.eu-1.eu.example.com a zone`,
      `  node -e 'const r=new (require("node:dns").promises.Resolver)();r.setServers(["${dns.server}"]);r.resolve4("${sampleGlobalName}").then(console.log)'    # without dig`,
      `  kubectl --kubeconfig ${control} get servicednsrecord -n ${sampleNamespace} ${sampleDeployment} -o yaml    # status.dns per cluster; the DNSEndpoint of the same name`,
      `flotilla: dashboard at https://127.0.0.1:${flotilla.dashboardPort ?? "?"}/ (read-only; the certificate is the test CA's, so the browser warns once); sign in with the link`,
      `  FLOTILLA_STATE_DIR=${state} npx flotillactl dashboard    # a one-time link, valid two minutes`,
      `  FLOTILLA_STATE_DIR=${state} npx flotillactl explain deploy/${sampleDeployment} -n ${sampleNamespace}    # why each cluster has the sample, or not`,
      `flotilla: each member's Kubernetes API through the control plane at https://127.0.0.1:${flotilla.memberApiPort ?? "?"}/clusters/<member>/ (also in ${join(state, "member-api-url")}):`,
      `  kubectl --kubeconfig <(FLOTILLA_STATE_DIR=${state} npx flotillactl kubeconfig --cluster ${first}) get pods -A    # nothing of ${first}'s needed`,
      "flotilla: Ctrl-C stops everything and removes what it wrote",
    ].join("\n"),
  );
}
