// The resource interpreter's contract (issue 21; Karmada's ResourceInterpreter): what Flotilla
// asks of a kind, operation by operation. A kind is interpreted by its native interpreter
// (shared/interpreter/native/), by a ResourceInterpreterCustomization's Lua script
// (shared/interpreter/lua/), or both: a customization beats the native one operation by
// operation. Every function here is synchronous and pure for its inputs; a failure throws an
// InterpreterError naming the operation, which the caller turns into an `InterpreterFailed`
// condition (never a deletion).
import type { KubeObject, Toleration } from "../api/types.ts";

/** Karmada's operation names (InterpreterOperation), as `flotillactl interpret --operation` takes them. */
export const OPERATIONS = [
  "InterpretReplica",
  "ReviseReplica",
  "Retain",
  "AggregateStatus",
  "InterpretStatus",
  "InterpretHealth",
  "InterpretDependency",
  "InterpretComponent",
] as const;
export type InterpreterOperation = (typeof OPERATIONS)[number];

/** Karmada's ReplicaRequirements: what one replica needs, for scheduling and capacity estimates. */
export interface ReplicaRequirements {
  nodeClaim?: {
    nodeSelector?: Record<string, string>;
    tolerations?: Toleration[];
    hardNodeAffinity?: unknown;
  };
  /** Resource name → canonical Kubernetes quantity string ("100m", "128Mi"). */
  resourceRequest?: Record<string, string>;
  namespace?: string;
  priorityClassName?: string;
}

/** Karmada's DependentObjectReference: a name, or a label selector, in a namespace. */
export interface DependentObjectReference {
  apiVersion: string;
  kind: string;
  namespace: string;
  name?: string;
  labelSelector?: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] };
}

/** One component of a multi-template workload (Karmada's componentResource). */
export interface Component {
  name: string;
  replicas: number;
  replicaRequirements?: ReplicaRequirements;
}

/** One member's entry as AggregateStatus sees it: Karmada's AggregatedStatusItem (clusterName, status, applied, appliedMessage, health). */
export interface StatusItem {
  clusterName: string;
  /** What InterpretStatus reflected from the member object (its `.status` by default). */
  status?: Record<string, unknown>;
  applied?: boolean;
  appliedMessage?: string;
  health?: "Healthy" | "Unhealthy" | "Unknown";
}

/**
 * What an interpreter knows of one kind. An absent function means "not interpreted here": the
 * next interpreter in precedence (or the default behaviour) answers.
 */
export interface KindInterpreter {
  /** InterpretReplica: the replicas the template asks for and what each needs. */
  getReplicas?(obj: KubeObject): { replicas: number; requires?: ReplicaRequirements };
  /** ReviseReplica: the object with its replicas set to `replicas` (a member's share). */
  reviseReplica?(obj: KubeObject, replicas: number): KubeObject;
  /** Retain: the desired object with what the member owns kept from the observed one. */
  retain?(desired: KubeObject, observed: KubeObject): KubeObject;
  /** InterpretStatus (ReflectStatus): what of the member object's status is reported back. */
  reflectStatus?(observed: KubeObject): Record<string, unknown> | undefined;
  /** AggregateStatus: the template with the members' statuses summed into its status. */
  aggregateStatus?(obj: KubeObject, items: readonly StatusItem[]): KubeObject;
  /** InterpretHealth: whether the member object is healthy. */
  interpretHealth?(observed: KubeObject): boolean;
  /** InterpretDependency: what else the object needs in the same member (sorted, no duplicates). */
  getDependencies?(obj: KubeObject): DependentObjectReference[];
  /** InterpretComponent: the components of a multi-template workload. */
  getComponents?(obj: KubeObject): Component[];
}

/** A failed interpretation: the operation, the kind, and the runtime's message (with a Lua line when there is one). */
export class InterpreterError extends Error {
  readonly operation: InterpreterOperation;
  constructor(operation: InterpreterOperation, message: string) {
    super(`${operation}: ${message}`);
    this.name = "InterpreterError";
    this.operation = operation;
  }
}

/** The key interpreters are registered under: `<apiVersion>/<kind>` ("apps/v1/Deployment", "v1/Pod"). */
export function kindKey(apiVersion: string, kind: string): string {
  return `${apiVersion}/${kind}`;
}

/**
 * Why an object a script returned (Retain, ReviseReplica) is not the one it was given: another
 * apiVersion, kind, name or namespace, which would apply (and later prune) an object no template
 * names (issue 37). Undefined when it is the same object.
 */
export function anotherObject(given: KubeObject, returned: KubeObject): string | undefined {
  const id = (o: KubeObject) => [o.apiVersion, o.kind, o.metadata?.name ?? "", o.metadata?.namespace ?? ""] as const;
  const [apiVersion, kind, name, namespace] = id(returned);
  if (JSON.stringify(id(given)) === JSON.stringify(id(returned))) return undefined;
  return `the script returned ${kind}/${name} (${apiVersion}${namespace === "" ? "" : `, namespace ${namespace}`}), not the object it was given`;
}
