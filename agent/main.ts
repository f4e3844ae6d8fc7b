// `flotilla agent`: runs in a member cluster, pulls its Works from the hub, applies them.
import type { FlagSpec, FlagValues } from "../shared/flags.ts";
import { loadKubeConfig } from "../shared/kubeconfig.ts";
import { createLogger } from "../shared/logger.ts";
import { waitForSignal } from "../shared/signals.ts";
import { startAgent } from "./agent.ts";

export const agentFlags: FlagSpec[] = [
  { name: "cluster-name", type: "string", env: "FLOTILLA_CLUSTER_NAME", required: true, help: "the member cluster this agent serves; must match its client certificate" },
  { name: "hub-address", type: "string", env: "FLOTILLA_HUB_ADDRESS", required: true, help: "host:port of the control plane's agent hub" },
  { name: "hub-server-name", type: "string", env: "FLOTILLA_HUB_SERVER_NAME", help: "the name in the hub's certificate, when it differs from the address's host" },
  { name: "ca-cert", type: "string", env: "FLOTILLA_CA_CERT", required: true, help: "PEM file of the CA that signed the hub's certificate" },
  { name: "tls-cert", type: "string", env: "FLOTILLA_TLS_CERT", required: true, help: "PEM file of this agent's client certificate (CN = cluster name)" },
  { name: "tls-key", type: "string", env: "FLOTILLA_TLS_KEY", required: true, help: "PEM file of this agent's private key" },
  { name: "kubeconfig", type: "string", env: "KUBECONFIG", help: "kubeconfig of the member cluster (default: in-cluster service account, else ~/.kube/config)" },
  { name: "state-namespace", type: "string", default: "flotilla-system", help: "namespace in the member where the agent keeps its applied-work records" },
  { name: "heartbeat-interval", type: "duration", default: "10s", help: "how often the agent reports cluster health and capacity" },
  { name: "health-listen", type: "string", default: "0.0.0.0:8081", help: 'host:port for /healthz, /readyz, /metrics ("" disables)' },
  { name: "workers", type: "int", default: "8", help: "Works applied in parallel" },
];

/** Runs the agent until SIGTERM/SIGINT. */
export async function runAgent(flags: FlagValues): Promise<void> {
  const log = createLogger("flotilla-agent").child({ cluster: flags["cluster-name"] });
  const agent = await startAgent({
    kc: loadKubeConfig(flags.kubeconfig as string | undefined),
    log,
    clusterName: flags["cluster-name"] as string,
    hubAddress: flags["hub-address"] as string,
    hubServerName: flags["hub-server-name"] as string | undefined,
    tls: { caFile: flags["ca-cert"] as string, certFile: flags["tls-cert"] as string, keyFile: flags["tls-key"] as string },
    stateNamespace: flags["state-namespace"] as string,
    heartbeatMs: flags["heartbeat-interval"] as number,
    healthListen: flags["health-listen"] as string,
    workers: flags.workers as number,
  });
  log.info({ healthPort: agent.healthPort }, "agent started");
  await waitForSignal();
  log.info("stopping");
  await agent.stop();
}
