// The agent's own Prometheus metrics, read from its parts when scraped (shared/metrics.ts).
import { counterOf, gaugeOf } from "../shared/metrics.ts";
import type { AppliedStore } from "./applied/applied-store.ts";
import type { HubConnection } from "./hub/hub-connection.ts";
import type { AgentCustomizations } from "./interpreter/customizations.ts";
import type { WorkloadMetricsPoller } from "./metrics/workload-metrics.ts";
import type { WorkRunner } from "./work/work-runner.ts";

export function registerAgentMetrics(parts: { connection: HubConnection; runner: WorkRunner; applied: AppliedStore; customizations: AgentCustomizations; metrics: WorkloadMetricsPoller }): void {
  const { connection, runner, applied, customizations, metrics } = parts;
  gaugeOf("flotilla_agent_connected", "1 while synced with the hub.", () => (connection.connected ? 1 : 0));
  counterOf("flotilla_agent_stream_connects_total", "Streams opened to the hub.", () => connection.connects);
  counterOf("flotilla_agent_upserts_received_total", "WorkUpserts received.", () => connection.upserts);
  counterOf("flotilla_agent_manifest_bytes_received_total", "Manifest bytes received.", () => connection.manifestBytes);
  counterOf("flotilla_agent_applies_total", "Server-side applies sent to the member.", () => runner.stats.applies);
  counterOf("flotilla_agent_create_conflicts_total", "Creates sent without a read first (the watch cache had no such object) that met an existing object, which was then read and decided on.", () => runner.stats.createConflicts);
  counterOf("flotilla_agent_deletes_total", "Member objects deleted, by the reason the agent was given.", () => [...runner.stats.deletesByReason].map(([reason, n]) => [{ reason }, n] as const), ["reason"]);
  counterOf("flotilla_agent_state_writes_total", "Writes of the applied-work record ConfigMaps.", () => applied.writes);
  gaugeOf("flotilla_agent_works", "Works held, with their manifests or by hash.", () => Object.keys(runner.heldHashes()).length + runner.byHashKeys().length);
  counterOf("flotilla_agent_customization_sets_received_total", "Interpreter customization sets received from the hub and taken.", () => customizations.received);
  gaugeOf("flotilla_agent_customizations", "Interpreter customizations held (those with Retain, ReflectStatus or InterpretHealth).", () => customizations.size);
  counterOf("flotilla_agent_metrics_polls_total", "Passes over the workloads the hub wants summarised.", () => metrics.polls);
  gaugeOf("flotilla_agent_works_by_hash", "Works held by hash only (applied before a restart; no manifests in memory).", () => runner.byHashKeys().length);
  gaugeOf("flotilla_agent_work_queue_depth", "Works waiting or being applied.", () => runner.controller.queue.length + runner.controller.queue.inFlight);
}
