// The member's watches the agent's parts read, wired to the Works they concern: the objects it
// applied (drift and status), the HPAs (replicas a member owns), the EndpointSlices of its Services
// (ready endpoints) and the pods (heartbeats, and a pod that becomes Unschedulable or stops being so).
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { KubeRest } from "../shared/kube-rest.ts";
import { ObjectWatch } from "./applied/object-watch.ts";
import { HpaIndex } from "./apply/hpa-index.ts";
import { HeartbeatSource } from "./heartbeat/heartbeat.ts";
import { AGENT_VERSION } from "./hub/hello.ts";
import { EndpointSliceIndex } from "./status/endpoint-slices.ts";
import { UnschedulablePodWatch } from "./status/unschedulable-watch.ts";
import { workOfService, worksOfPod } from "./work/member-events.ts";

export interface MemberWatches {
  objects: ObjectWatch;
  hpas: HpaIndex;
  endpoints: EndpointSliceIndex;
  heartbeats: HeartbeatSource;
  stop(): void;
}

/** Constructs the watches; `enqueue` looks at a Work again. The heartbeat's pod cache is started by the caller. */
export function startMemberWatches(opts: { kc: KubeConfig; rest: KubeRest; log: Logger; enqueue: (key: string) => void }): MemberWatches {
  const { kc, rest, log } = opts;
  const enqueue = (keys: string[]) => keys.forEach((k) => opts.enqueue(k));
  const objects = new ObjectWatch({ kc, rest, log, onChange: (key) => opts.enqueue(key) });
  const hpas = new HpaIndex({ kc, rest, log });
  // A Service's ready endpoints changed: its Work reports again.
  const endpoints = new EndpointSliceIndex({ kc, rest, log, onChange: (namespace, service) => enqueue(workOfService(objects, namespace, service)) });
  const heartbeats = new HeartbeatSource({ kc, rest, log, agentVersion: AGENT_VERSION });
  // A pod that becomes Unschedulable, or stops being so, changes its workload's report.
  const unschedulable = new UnschedulablePodWatch((namespace, labels) => enqueue(worksOfPod(objects, namespace, labels)));
  heartbeats.onPod((pod, deleted) => unschedulable.seen(pod, deleted));
  return {
    objects,
    hpas,
    endpoints,
    heartbeats,
    stop: () => {
      objects.stop();
      hpas.stop();
      endpoints.stop();
      heartbeats.stop();
    },
  };
}
