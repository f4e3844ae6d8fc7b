// bench:member-api's Work propagation probe: a Deployment template created, then updated, in the
// control cluster under one PropagationPolicy that places it on member1, each timed until a watch
// on member1's own apiserver shows it (the annotation's new value). Replicas 0: no pods, so the
// figure is Flotilla's pipeline (detector, binding, Work, the hub's stream, the agent's apply).
import { RESOURCES } from "../../shared/api/resources.ts";
import { type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { type Endpoint, openWatch, type Watch } from "./member-api-http.ts";

const NS = "bench-member-api-work";
const LABEL = "bench-member-api-work";
const ANNOTATION = "bench.flotilla.dev/v";
const FIELD_MANAGER = "flotilla-bench";
const deployments = { apiVersion: "apps/v1", kind: "Deployment", plural: "deployments", namespaced: true };

const deployment = (name: string, v: string) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, namespace: NS, labels: { [LABEL]: "true" }, annotations: { [ANNOTATION]: v } },
  spec: { replicas: 0, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "nginx" }] } } },
});

/** ms of the create and the update of one template; undefined where member1 did not show it in time. */
export type WorkTimes = [number | undefined, number | undefined];

export interface WorkProbe {
  /** Creates template `name`, then updates it, each timed until member1's watch shows it. */
  sample(name: string): Promise<WorkTimes>;
  stop(): void;
}

/** The namespace and policy in the control cluster, and the watch on member1. */
export async function startWorkProbe(control: KubeRest, member1: Endpoint, cluster: string, timeoutMs: number): Promise<WorkProbe> {
  await control.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } } });
  await control.apply(objectPath(RESOURCES.propagationPolicy, NS, "work"), {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "PropagationPolicy",
    metadata: { name: "work", namespace: NS },
    spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", labelSelector: { matchLabels: { [LABEL]: "true" } } }], placement: { clusterAffinity: { clusterNames: [cluster] } } },
  }, FIELD_MANAGER);
  const waiters = new Map<string, (at: number) => void>();
  let watch: Watch | undefined;
  let stopped = false;
  // Started again should it end: member1's apiserver closes a watch after its own timeout.
  const open = () => {
    watch = openWatch(member1, `/apis/apps/v1/namespaces/${NS}/deployments?watch=1&allowWatchBookmarks=true`, (e, at) => {
      const key = `${e.object.metadata?.name}=${e.object.metadata?.annotations?.[ANNOTATION]}`;
      waiters.get(key)?.(at);
      waiters.delete(key);
    }, () => void (stopped || setTimeout(open, 100)));
    return watch.ready;
  };
  await open();
  const timed = async (name: string, v: string): Promise<number | undefined> => {
    const seen = new Promise<number | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), timeoutMs);
      waiters.set(`${name}=${v}`, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
    const t0 = performance.now();
    await control.apply(objectPath(deployments, NS, name), deployment(name, v), FIELD_MANAGER);
    const at = await seen;
    return at === undefined ? undefined : at - t0;
  };
  return {
    sample: async (name) => [await timed(name, "1"), await timed(name, "2")],
    stop: () => {
      stopped = true;
      watch?.close();
    },
  };
}
