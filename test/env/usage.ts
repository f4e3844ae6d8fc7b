// What a test sets in a member started with `metrics`: the CPU and memory its fake pods use (kwok
// reports it as their kubelet would, metrics-server serves it) and the room its fake Nodes have.
import { ApiException, CoreV1Api, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";

/** A pod's usage, as Kubernetes quantities ("900m", "128Mi"). */
export interface PodUsage {
  cpu: string;
  /** Default 16Mi: metrics-server leaves out a container that reports no memory. */
  memory?: string;
}

/** A rule of the member's workload usage: pods in namespace whose labels include matchLabels. */
export interface UsageRule {
  namespace: string;
  matchLabels: Record<string, string>;
  cpu: string;
  memory: string;
}

const KWOK = { group: "kwok.x-k8s.io", version: "v1alpha1" };
const defaultMemory = "16Mi";
/** What pods no rule and no ResourceUsage names use: kwok's own defaults (usage-from-annotation). */
export const FALLBACK_USAGE = { cpu: "1m", memory: "1Mi" };
/** The one ClusterResourceUsage setWorkloadUsage keeps, and where it records its rules. */
export const WORKLOAD_USAGE_NAME = "flotilla-workload-usage";
const RULES_ANNOTATION = "flotilla.dev/usage-rules";

const quantity = /^[0-9]+(\.[0-9]+)?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/;

function checkQuantity(q: string): string {
  if (!quantity.test(q)) throw new Error(`test/env usage: ${JSON.stringify(q)} is not a quantity like "900m" or "128Mi"`);
  return q;
}

/**
 * Sets the usage of the named pods: one kwok ResourceUsage each, named after the pod (kwok's
 * match), which wins over any workload rule. Pods that are replaced get new names: for a workload's
 * pods now and later, use setWorkloadUsage.
 */
export async function setPodUsage(kc: KubeConfig, namespace: string, pods: string[], usage: PodUsage): Promise<void> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const spec = { usages: [{ usage: usageValues(usage) }] };
  for (const name of pods) {
    const body = { apiVersion: `${KWOK.group}/${KWOK.version}`, kind: "ResourceUsage", metadata: { name, namespace }, spec };
    const ref = { ...KWOK, plural: "resourceusages", namespace, name };
    await retryOnConflict(async () => {
      const current = await custom.getNamespacedCustomObject(ref).catch(notFoundAs(undefined));
      if (current === undefined) await custom.createNamespacedCustomObject({ ...ref, body });
      else await custom.replaceNamespacedCustomObject({ ...ref, body: withVersion(body, current) });
    });
  }
}

/**
 * Sets the usage of every pod in namespace whose labels include matchLabels, those that exist and
 * those created later (a scale-up's new replicas). The same namespace and labels again replace the
 * earlier rule; the first matching rule wins.
 */
export async function setWorkloadUsage(
  kc: KubeConfig,
  namespace: string,
  matchLabels: Record<string, string>,
  usage: PodUsage,
): Promise<void> {
  const rule: UsageRule = {
    namespace,
    matchLabels,
    cpu: checkQuantity(usage.cpu),
    memory: checkQuantity(usage.memory ?? defaultMemory),
  };
  await updateWorkloadUsage(kc, (rules) => withRule(rules, rule));
}

/**
 * Writes the member's workload usage with no rules when it has none yet, so every pod reports the
 * fallback usage (and shows in metrics.k8s.io) before a test sets any. startCluster runs it.
 */
export async function installFallbackUsage(kc: KubeConfig): Promise<void> {
  await updateWorkloadUsage(kc, (rules) => rules);
}

async function updateWorkloadUsage(kc: KubeConfig, update: (rules: UsageRule[]) => UsageRule[]): Promise<void> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const ref = { ...KWOK, plural: "clusterresourceusages", name: WORKLOAD_USAGE_NAME };
  await retryOnConflict(async () => {
    const current = (await custom.getClusterCustomObject(ref).catch(notFoundAs(undefined))) as KwokObject | undefined;
    const rules = update(JSON.parse(current?.metadata.annotations?.[RULES_ANNOTATION] ?? "[]") as UsageRule[]);
    const body = {
      apiVersion: `${KWOK.group}/${KWOK.version}`,
      kind: "ClusterResourceUsage",
      metadata: { name: WORKLOAD_USAGE_NAME, annotations: { [RULES_ANNOTATION]: JSON.stringify(rules) } },
      spec: {
        usages: [
          {
            usage: {
              cpu: { expression: usageExpression(rules, "cpu", FALLBACK_USAGE.cpu) },
              memory: { expression: usageExpression(rules, "memory", FALLBACK_USAGE.memory) },
            },
          },
        ],
      },
    };
    if (current === undefined) await custom.createClusterCustomObject({ ...ref, body });
    else await custom.replaceClusterCustomObject({ ...ref, body: withVersion(body, current) });
  });
}

/** rules with rule in place of one for the same namespace and labels, else appended. */
export function withRule(rules: UsageRule[], rule: UsageRule): UsageRule[] {
  const key = (r: UsageRule) => JSON.stringify([r.namespace, Object.entries(r.matchLabels).sort()]);
  const i = rules.findIndex((r) => key(r) === key(rule));
  return i < 0 ? [...rules, rule] : rules.map((r, j) => (j === i ? rule : r));
}

/**
 * The CEL expression kwok evaluates per container: the first rule whose namespace and labels match
 * the pod gives its quantity, else fallback. Strings are JSON-quoted, which CEL reads the same way.
 */
export function usageExpression(rules: UsageRule[], resource: "cpu" | "memory", fallback: string): string {
  const q = (s: string) => JSON.stringify(s);
  return rules.reduceRight((otherwise, rule) => {
    const conditions = [
      `pod.metadata.namespace == ${q(rule.namespace)}`,
      ...Object.entries(rule.matchLabels)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => `(${q(k)} in pod.metadata.labels && pod.metadata.labels[${q(k)}] == ${q(v)})`),
    ];
    return `${conditions.join(" && ")} ? Quantity(${q(rule[resource])}) : (${otherwise})`;
  }, `Quantity(${q(fallback)})`);
}

/**
 * Sets a fake Node's capacity and allocatable (both: the scheduler counts allocatable), so that the
 * real kube-scheduler leaves pods that do not fit Pending with PodScheduled=False, Unschedulable.
 * Unnamed resources keep their values.
 */
export async function setNodeCapacity(
  kc: KubeConfig,
  node: string,
  capacity: { cpu?: string; memory?: string; pods?: string },
): Promise<void> {
  for (const q of Object.values(capacity)) if (q !== undefined) checkQuantity(q);
  const core = kc.makeApiClient(CoreV1Api);
  await retryOnConflict(async () => {
    const n = await core.readNode({ name: node });
    const set = Object.fromEntries(Object.entries(capacity).filter(([, v]) => v !== undefined)) as Record<string, string>;
    n.status = {
      ...n.status,
      capacity: { ...n.status?.capacity, ...set },
      allocatable: { ...n.status?.allocatable, ...set },
    };
    await core.replaceNodeStatus({ name: node, body: n });
  });
}

interface KwokObject {
  metadata: { resourceVersion?: string; annotations?: Record<string, string> };
}

function usageValues(usage: PodUsage) {
  return { cpu: { value: checkQuantity(usage.cpu) }, memory: { value: checkQuantity(usage.memory ?? defaultMemory) } };
}

function withVersion<T extends { metadata: object }>(body: T, current: unknown): T {
  const resourceVersion = (current as KwokObject).metadata.resourceVersion;
  return { ...body, metadata: { ...body.metadata, resourceVersion } };
}

function notFoundAs<T>(value: T): (err: unknown) => T {
  return (err: unknown) => {
    if (err instanceof ApiException && err.code === 404) return value;
    throw err;
  };
}

/** Runs a read-modify-write again when someone else wrote in between (kwok updates Node status too). */
async function retryOnConflict(write: () => Promise<void>, attempts = 10): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      await write();
      return;
    } catch (err) {
      if (i >= attempts || !(err instanceof ApiException && err.code === 409)) throw err;
    }
  }
}
