// Installs the MCS CRDs in a cluster (issue 40, DESIGN §13) as shared/mcs-crd-decision.ts says,
// never over a newer one, and waits until each is served; and writes the two ClusterProperty
// objects of KEP-2149 that name the cluster and its clusterset.
import { setTimeout as sleep } from "node:timers/promises";
import { type Crd, decideMcsCrd, type McsCrdAction } from "./mcs-crd-decision.ts";
import { loadMcsCrds } from "./mcs-crds.ts";
import { collectionPath, isKubeStatus, type KubeRest, objectPath, type ResourceInfo } from "./kube-rest.ts";

/** The field manager of what this file applies. */
export const MCS_FIELD_MANAGER = "flotilla-mcs";

/** KEP-2149's well-known ClusterProperty names. */
export const CLUSTER_ID_PROPERTY = "cluster.clusterset.k8s.io";
export const CLUSTERSET_PROPERTY = "clusterset.k8s.io";

const CRDS: ResourceInfo = { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", plural: "customresourcedefinitions", namespaced: false };
// v1alpha1: every about-api release serves it (v1beta1 came later), and so does ours.
const CLUSTER_PROPERTIES: ResourceInfo = { apiVersion: "about.k8s.io/v1alpha1", kind: "ClusterProperty", plural: "clusterproperties", namespaced: false };
const defaultTimeoutMs = 60_000;
const pollMs = 100;

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** What installMcsCrds did with one CRD, and why. */
export interface McsCrdResult {
  crd: string;
  action: McsCrdAction;
  reason: string;
}

interface ServedCrd extends Crd {
  status?: { storedVersions?: string[]; conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

/**
 * Creates, upgrades or keeps each MCS CRD (ClusterProperty, ServiceExport, ServiceImport) by
 * server-side apply, then resolves once the apiserver reports every one Established. A kept CRD
 * is left as it is, and a newer one is logged as a warning.
 */
export async function installMcsCrds(rest: KubeRest, log: Log, opts: { timeoutMs?: number; fieldManager?: string } = {}): Promise<McsCrdResult[]> {
  const results: McsCrdResult[] = [];
  for (const ours of (await loadMcsCrds()) as unknown as Crd[]) {
    const name = ours.metadata.name as string;
    const path = objectPath(CRDS, undefined, name);
    const served = await rest.get<ServedCrd>(path).catch((err: unknown) => {
      if (isKubeStatus(err, 404)) return undefined;
      throw err;
    });
    const decision = decideMcsCrd(served, ours);
    if (decision.apply !== undefined) await rest.apply(path, decision.apply, opts.fieldManager ?? MCS_FIELD_MANAGER, true);
    const details = { crd: name, action: decision.action, reason: decision.reason };
    if (decision.newer === true) log.warn(details, "a newer MCS CRD is served; keeping it");
    else log.info(details, "MCS CRD installed");
    results.push({ crd: name, action: decision.action, reason: decision.reason });
  }
  await waitEstablished(rest, results.map((r) => r.crd), opts.timeoutMs ?? defaultTimeoutMs);
  return results;
}

/** Polls each CRD until Established; NamesAccepted=False never heals by itself. */
async function waitEstablished(rest: KubeRest, names: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const name of names) {
    for (;;) {
      const crd = await rest.get<ServedCrd>(objectPath(CRDS, undefined, name));
      const conditions = crd.status?.conditions ?? [];
      const accepted = conditions.find((c) => c.type === "NamesAccepted");
      if (accepted?.status === "False") throw new Error(`CRD ${name}: names not accepted: ${accepted.reason}: ${accepted.message}`);
      if (conditions.some((c) => c.type === "Established" && c.status === "True")) break;
      if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for CRD ${name} to be Established`);
      await sleep(pollMs);
    }
  }
}

/** What applyClusterProperties did with one property. */
export interface ClusterPropertyResult {
  name: string;
  /** The value we asked for. */
  value: string;
  /** created or applied: it holds value; kept: another value is served and stays (the cluster's id). */
  outcome: "created" | "unchanged" | "kept";
  /** When kept: the value served. */
  served?: string;
}

interface ClusterProperty {
  metadata?: { name?: string };
  spec?: { value?: string };
}

/**
 * Writes the ClusterProperties cluster.clusterset.k8s.io (the cluster's name) and
 * clusterset.k8s.io (the clusterset's). KEP-2149: a cluster's id may not change while it is in a
 * clusterset, and other MCS implementations may have set it already, so one with another value is
 * never overwritten: it is reported (outcome kept, and a warning). clusterset.k8s.io is applied.
 */
export async function applyClusterProperties(
  rest: KubeRest,
  o: { clusterName: string; clustersetName: string; log?: Log; fieldManager?: string },
): Promise<ClusterPropertyResult[]> {
  const manager = o.fieldManager ?? MCS_FIELD_MANAGER;
  const property = (name: string, value: string) => ({ apiVersion: CLUSTER_PROPERTIES.apiVersion, kind: CLUSTER_PROPERTIES.kind, metadata: { name }, spec: { value } });
  // Created when absent; a value already there is kept, never overwritten: the cluster's id may not
  // change while it is in a clusterset (KEP-2149), and another value of clusterset.k8s.io is
  // another MCS implementation's (or another fleet's) membership, for its admin to change.
  const createOrKeep = async (name: string, value: string, why: string): Promise<ClusterPropertyResult> => {
    const created = await rest.request<ClusterProperty>("POST", collectionPath(CLUSTER_PROPERTIES), { body: property(name, value), query: { fieldManager: manager } }).then(
      () => true,
      (err: unknown) => {
        if (isKubeStatus(err, 409)) return false;
        throw err;
      },
    );
    if (created) return { name, value, outcome: "created" };
    const served = (await rest.get<ClusterProperty>(objectPath(CLUSTER_PROPERTIES, undefined, name))).spec?.value;
    if (served === value) return { name, value, outcome: "unchanged" };
    o.log?.warn({ property: name, served, ours: value }, why);
    return { name, value, outcome: "kept", ...(served === undefined ? {} : { served }) };
  };
  return [
    await createOrKeep(CLUSTER_ID_PROPERTY, o.clusterName, "the cluster's id in its clusterset is another name; kept (KEP-2149: it may not change while in a clusterset)"),
    await createOrKeep(CLUSTERSET_PROPERTY, o.clustersetName, "the cluster is recorded in another clusterset; kept (delete the ClusterProperty clusterset.k8s.io to move it to this one)"),
  ];
}
