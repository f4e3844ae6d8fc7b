// What the agent does with each message of the hub's stream: the Hello it opens with, Works to
// apply or remove, the fleet's customizations, the workloads to summarise, the status and live
// reads the hub asks for, and after each sync everything reported again.
import type { Discovery } from "../shared/discovery.ts";
import type { KubeRest } from "../shared/kube-rest.ts";
import { helloOf } from "./hub/hello.ts";
import type { HubHandlers } from "./hub/hub-connection.ts";
import { readLive } from "./hub/live-objects.ts";
import type { AgentCustomizations } from "./interpreter/customizations.ts";
import type { WorkloadMetricsPoller } from "./metrics/workload-metrics.ts";
import type { McsSync } from "./mcs/mcs-sync.ts";
import type { MemberApiProxy } from "./member-api/member-api-proxy.ts";
import type { WorkRunner } from "./work/work-runner.ts";

export function hubHandlers(parts: {
  clusterName: string;
  rest: KubeRest;
  discovery: Discovery;
  runner: WorkRunner;
  metrics: WorkloadMetricsPoller;
  customizations: AgentCustomizations;
  /** Issue 40: the member's ServiceExports and Flotilla's imports. */
  mcs: McsSync;
  /** Issue 41: callers' requests to the member, as the caller. */
  memberApi: MemberApiProxy;
  /** Tells the stream a workload summary changed (or, after a sync, is to be sent again). */
  reportMetrics: (key: string) => void;
  /** Sends a heartbeat now. */
  heartbeat: () => void;
}): HubHandlers {
  const { runner, metrics, customizations } = parts;
  return {
    hello: () =>
      helloOf({
        clusterName: parts.clusterName,
        workHashes: runner.helloHashes(),
        earlierWorks: runner.earlierRegistrationWorks(),
        customizationsHash: customizations.hash,
        metricsWantedHash: metrics.hash,
      }),
    metricsWanted: (m) => metrics.want(m),
    workloadMetrics: (key) => metrics.latest(key),
    customizations: (c) => void customizations.receive(c).then((kinds) => runner.reinterpret(kinds)),
    upsert: (u) => runner.receive(u),
    delete: (k, preserve, reason) => runner.delete(k, preserve, reason),
    syncDone: () => {
      runner.afterSync();
      for (const k of metrics.keys()) parts.reportMetrics(k);
      parts.mcs.afterSync();
      parts.heartbeat();
    },
    status: (k) => runner.status(k),
    serviceExport: (k) => parts.mcs.reportMessage(k),
    serviceExportsSynced: () => parts.mcs.syncedMessage(),
    live: (req) => readLive(parts.rest, parts.discovery, req),
    memberApi: (frame, write) => parts.memberApi.received(frame, write),
    streamEnded: () => parts.memberApi.closed(),
  };
}
