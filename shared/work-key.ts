// A Work's key names one (template, cluster) pair's object on the wire and in flotillactl, so it
// reads like a path: group/version/kind/namespace/name. Kubernetes names never contain "/", the
// core group has no name of its own ("core" stands in), and "-" is never a valid namespace, so the
// key parses back unambiguously.
import { createHash } from "node:crypto";
import type { KubeObject, ResourceBinding } from "./api/types.ts";

/** The object a Work key names. */
export interface WorkRef {
  apiVersion: string;
  kind: string;
  /** Absent for a cluster-scoped object. */
  namespace?: string;
  name: string;
}

/** Thrown for a key (or a ref) that is not group/version/kind/namespace/name; retrying cannot fix it. */
export class WorkKeyError extends Error {
  /** The offending input as JSON: the key string, or the ref object given to workKey. */
  readonly input: string;
  constructor(input: string, reason: string) {
    super(`malformed work key ${input}: ${reason}`);
    this.name = "WorkKeyError";
    this.input = input;
  }
}

/** The annotation on a member object naming the Work that applied it (the agent sets it; its label holds only a digest). */
export const WORK_KEY_ANNOTATION = "flotilla.dev/work-key";

const CORE_GROUP = "core";
const CLUSTER_SCOPED = "-";

/** `${group}/${version}/${kind}/${namespace}/${name}`, with "core" for the core group and "-" for no namespace. */
export function workKey(ref: WorkRef): string {
  const input = JSON.stringify(ref);
  const gv = ref.apiVersion.split("/");
  if (gv.length > 2) throw new WorkKeyError(input, "apiVersion must be version or group/version");
  const [group, version] = gv.length === 2 ? gv : [CORE_GROUP, ref.apiVersion];
  if (gv.length === 2 && group === CORE_GROUP) throw new WorkKeyError(input, `group "${CORE_GROUP}" stands for the core group`);
  if (ref.namespace === CLUSTER_SCOPED) throw new WorkKeyError(input, `namespace "${CLUSTER_SCOPED}" stands for cluster scope`);
  const namespace = ref.namespace === undefined || ref.namespace === "" ? CLUSTER_SCOPED : ref.namespace;
  const parts = [group ?? "", version ?? "", ref.kind, namespace, ref.name];
  checkParts(input, parts);
  return parts.join("/");
}

/** The inverse of workKey; throws WorkKeyError on anything workKey could not have produced. */
export function parseWorkKey(key: string): WorkRef {
  const input = JSON.stringify(key);
  const parts = key.split("/");
  if (parts.length !== 5) throw new WorkKeyError(input, `want 5 parts separated by "/", got ${parts.length}`);
  checkParts(input, parts);
  const [group, version, kind, namespace, name] = parts as [string, string, string, string, string];
  const ref: WorkRef = { apiVersion: group === CORE_GROUP ? version : `${group}/${version}`, kind, name };
  if (namespace !== CLUSTER_SCOPED) ref.namespace = namespace;
  return ref;
}

/** A label-safe stand-in for a key (label values hold at most 63 chars): the first 40 hex chars of its SHA-256. */
export function workKeyLabelValue(key: string): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 40);
}

const PART_NAMES = ["group", "version", "kind", "namespace", "name"];

function checkParts(input: string, parts: readonly string[]): void {
  parts.forEach((part, i) => {
    if (part === "") throw new WorkKeyError(input, `${PART_NAMES[i]} is empty`);
    if (part.includes("/")) throw new WorkKeyError(input, `${PART_NAMES[i]} contains "/"`);
  });
}

/** A template's key: the work key of the object itself. */
export function templateKey(o: KubeObject): string {
  return workKey({ apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name ?? "" });
}

/** The key of the template a binding refers to. */
export function templateKeyOfBinding(b: ResourceBinding): string {
  const r = b.spec.resource;
  return workKey({ apiVersion: r.apiVersion, kind: r.kind, namespace: r.namespace, name: r.name });
}

/** The API group of an apiVersion: "" for the core group ("v1"). */
export function apiGroup(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}
