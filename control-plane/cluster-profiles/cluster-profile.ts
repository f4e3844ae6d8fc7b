// SIG Multicluster's ClusterProfile (KEP-4322, multicluster.x-k8s.io/v1alpha1, the schema of
// cluster-inventory-api v0.1.2 in control-plane/crds/clusterprofiles.yaml) and the profile
// Flotilla publishes for one member Cluster. Pure: no clock (the caller gives `now`), no I/O.
// Flotilla writes only its own parts of a profile (server-side apply keeps another writer's
// properties, conditions and providers), so what it compares is that part alone (ownedStatus).
import type { Cluster, Condition, ObjectMeta } from "../../shared/api/types.ts";
import { contentHash } from "../../shared/content-hash.ts";

export const CLUSTER_PROFILE_API_VERSION = "multicluster.x-k8s.io/v1alpha1";
export const CLUSTER_PROFILE_KIND = "ClusterProfile";
/** Upstream's label naming the cluster manager that owns a profile (LabelClusterManagerKey). */
export const CLUSTER_MANAGER_LABEL = "x-k8s.io/cluster-manager";
/** Flotilla's name as a cluster manager: the label's value and spec.clusterManager.name. */
export const CLUSTER_MANAGER = "flotilla";
/** The access provider Flotilla writes: its member API endpoint for the cluster. */
export const ACCESS_PROVIDER = "flotilla";
/** KEP-4322's condition types. */
export const CONTROL_PLANE_HEALTHY = "ControlPlaneHealthy";
export const JOINED = "Joined";

/** The property names Flotilla writes, from the Cluster; only these are ever Flotilla's. */
export const PROPERTY = {
  /** KEP-2149's cluster id: Flotilla's clusterset knows each member by its Cluster's name (the agent writes the same ClusterProperty in the member). */
  clusterId: "cluster.clusterset.k8s.io",
  /** spec.region and spec.zone, under Kubernetes' well-known topology keys. */
  region: "topology.kubernetes.io/region",
  zone: "topology.kubernetes.io/zone",
  /** spec.provider: no well-known name exists, so Flotilla's own. */
  provider: "provider.flotilla.dev",
} as const;
const OWNED_PROPERTIES: ReadonlySet<string> = new Set(Object.values(PROPERTY));
const OWNED_CONDITIONS: ReadonlySet<string> = new Set([CONTROL_PLANE_HEALTHY, JOINED]);
/** Upstream's bound on a property's value. */
const MAX_PROPERTY_VALUE = 1024;

export interface Property {
  name: string;
  value: string;
  lastObservedTime?: string;
}

/** A kubeconfig's cluster entry (clientcmd v1 Cluster), as accessProviders holds it. */
export interface AccessCluster {
  server: string;
  "certificate-authority-data"?: string;
  "tls-server-name"?: string;
  "insecure-skip-tls-verify"?: boolean;
  [field: string]: unknown;
}

export interface AccessProvider {
  name: string;
  cluster?: AccessCluster;
}

export interface ClusterProfileStatus {
  conditions?: Condition[];
  version?: { kubernetes?: string };
  properties?: Property[];
  accessProviders?: AccessProvider[];
  /** Deprecated in cluster-inventory-api v0.1.0; Flotilla never writes it. */
  credentialProviders?: AccessProvider[];
}

export interface ClusterProfile {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: { displayName?: string; clusterManager?: { name?: string } };
  status?: ClusterProfileStatus;
}

/** The part of a profile's status Flotilla owns, in a stable order: what it writes, and what it compares. */
export interface OwnedStatus {
  version?: { kubernetes: string };
  properties: Property[];
  conditions: Condition[];
  accessProviders: AccessProvider[];
}

/** What Flotilla publishes for a cluster: the object (labels, spec) and its status. */
export interface DesiredProfile {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  spec: { displayName: string; clusterManager: { name: string } };
  status: OwnedStatus;
}

/** How consumers reach the member API: its base URL (<url>/clusters/<name> is a member's endpoint) and the CA to trust, base64 PEM. */
export interface MemberAccess {
  url: string;
  caData: string;
}

/** Whether Flotilla manages this profile: its label and its immutable spec.clusterManager.name both say flotilla. */
export function isFlotillas(p: ClusterProfile): boolean {
  return p.metadata.labels?.[CLUSTER_MANAGER_LABEL] === CLUSTER_MANAGER && p.spec?.clusterManager?.name === CLUSTER_MANAGER;
}

/** Who manages a profile, for messages: its label, else its spec's manager, else "(none)". */
export function managerOf(p: ClusterProfile): string {
  return p.metadata.labels?.[CLUSTER_MANAGER_LABEL] ?? p.spec?.clusterManager?.name ?? "(none)";
}

/** The member API endpoint of one cluster. */
export function memberEndpoint(url: string, cluster: string): string {
  return `${url.replace(/\/+$/, "")}/clusters/${encodeURIComponent(cluster)}`;
}

/**
 * The profile Flotilla publishes for a Cluster. `served` is the profile now served (if Flotilla's):
 * a condition whose status did not change keeps its lastTransitionTime; `now` stamps one that did
 * (ControlPlaneHealthy takes the Ready condition's own time when there is one).
 */
export function desiredProfile(cluster: Cluster, o: { namespace: string; access?: MemberAccess; served?: ClusterProfile; now: string }): DesiredProfile {
  const name = cluster.metadata.name ?? "";
  const version = cluster.status?.kubernetesVersion;
  const status: OwnedStatus = {
    ...(version ? { version: { kubernetes: version } } : {}),
    properties: properties(cluster),
    conditions: conditions(cluster, o.served?.status?.conditions ?? [], o.now),
    accessProviders: o.access === undefined ? [] : [{ name: ACCESS_PROVIDER, cluster: { server: memberEndpoint(o.access.url, name), "certificate-authority-data": o.access.caData } }],
  };
  return {
    name,
    namespace: o.namespace,
    labels: { [CLUSTER_MANAGER_LABEL]: CLUSTER_MANAGER },
    spec: { displayName: name, clusterManager: { name: CLUSTER_MANAGER } },
    status,
  };
}

function properties(cluster: Cluster): Property[] {
  const spec = cluster.spec ?? {};
  const pairs: [string, string | undefined][] = [
    [PROPERTY.clusterId, cluster.metadata.name],
    [PROPERTY.provider, spec.provider],
    [PROPERTY.region, spec.region],
    [PROPERTY.zone, spec.zone],
  ];
  // Upstream's schema refuses an empty value or one over 1024 characters: such a value is left out.
  return pairs
    .filter((p): p is [string, string] => p[1] !== undefined && p[1] !== "" && p[1].length <= MAX_PROPERTY_VALUE)
    .map(([n, value]) => ({ name: n, value }))
    .sort(byName);
}

function conditions(cluster: Cluster, served: readonly Condition[], now: string): Condition[] {
  const since = (type: string, status: Condition["status"], fallback?: string) => {
    const before = served.find((c) => c.type === type);
    return before?.status === status && before.lastTransitionTime ? before.lastTransitionTime : (fallback ?? now);
  };
  const ready = cluster.status?.conditions?.find((c) => c.type === "Ready");
  const healthy: Condition = ready
    ? { type: CONTROL_PLANE_HEALTHY, status: ready.status, reason: reasonWord(ready.reason, `Cluster${ready.status === "True" ? "Ready" : "NotReady"}`), message: ready.message ?? "", lastTransitionTime: ready.lastTransitionTime || since(CONTROL_PLANE_HEALTHY, ready.status) }
    : { type: CONTROL_PLANE_HEALTHY, status: "Unknown", reason: "NoHeartbeatYet", message: "the control plane has not judged the cluster's health yet: no heartbeat from its agent", lastTransitionTime: since(CONTROL_PLANE_HEALTHY, "Unknown") };
  const j = joined(cluster);
  return [healthy, { type: JOINED, ...j, lastTransitionTime: since(JOINED, j.status) }].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

/** Joined (KEP-4322): the cluster is under Flotilla's management: its agent has reported, it is accepted, and it is not leaving. */
function joined(cluster: Cluster): Pick<Condition, "status" | "reason" | "message"> {
  if (cluster.metadata.deletionTimestamp !== undefined) {
    return { status: "False", reason: "Unjoining", message: "the Cluster is being deleted: it leaves the fleet once its agent has removed what Flotilla applied" };
  }
  const accepted = cluster.status?.conditions?.find((c) => c.type === "Accepted");
  if (accepted?.status === "False") return { status: "False", reason: "AwaitingAcceptance", message: accepted.message ?? "an admin has not accepted the cluster yet" };
  const reported = cluster.status?.lastHeartbeatTime !== undefined || cluster.status?.kubernetesVersion !== undefined;
  if (!reported) return { status: "False", reason: "AgentNotConnected", message: "no agent has connected for this Cluster yet" };
  return { status: "True", reason: "AgentJoined", message: "the cluster's agent has joined the fleet" };
}

/** A condition reason the schema takes (a CamelCase word), else the fallback. */
function reasonWord(reason: string | undefined, fallback: string): string {
  return reason !== undefined && /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/.test(reason) && reason.length <= 1024 ? reason : fallback;
}

/**
 * The part of a status Flotilla owns (its property names, its condition types, its access
 * provider), in the form compared: the provider's CA as a digest, so that the cache need not hold
 * a CA bundle per cluster (slimProfile). Idempotent: a status already in this form stays as it is.
 */
export function ownedStatus(status: ClusterProfileStatus | undefined): OwnedStatus {
  const version = status?.version?.kubernetes;
  return {
    ...(version ? { version: { kubernetes: version } } : {}),
    properties: (status?.properties ?? []).filter((p) => OWNED_PROPERTIES.has(p.name)).map((p) => ({ name: p.name, value: p.value })).sort(byName),
    conditions: (status?.conditions ?? [])
      .filter((c) => OWNED_CONDITIONS.has(c.type))
      .map((c) => ({ type: c.type, status: c.status, reason: c.reason, message: c.message, lastTransitionTime: c.lastTransitionTime }))
      .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0)),
    // Its entry's fields that Flotilla writes: another writer's extension of the entry is theirs.
    accessProviders: (status?.accessProviders ?? []).filter((p) => p.name === ACCESS_PROVIDER).map((p) => ({ name: p.name, ...(p.cluster ? { cluster: accessFields(p.cluster) } : {}) })),
  };
}

function accessFields(c: AccessCluster): AccessCluster {
  const ca = c["certificate-authority-data"];
  return { server: c.server, ...(ca === undefined ? {} : { "certificate-authority-data": ca.startsWith(DIGESTED) ? ca : `${DIGESTED}${contentHash(ca)}` }) };
}
const DIGESTED = "digest:";

/** What the controller's cache keeps of a served profile: what the decision reads, the status in its compared form. */
export function slimProfile(p: ClusterProfile): ClusterProfile {
  const { name, namespace, uid, resourceVersion, labels, deletionTimestamp } = p.metadata;
  const manager = p.spec?.clusterManager?.name;
  return {
    apiVersion: p.apiVersion,
    kind: p.kind,
    metadata: { name, namespace, uid, resourceVersion, ...(labels ? { labels } : {}), ...(deletionTimestamp ? { deletionTimestamp } : {}) },
    spec: manager === undefined ? {} : { clusterManager: { name: manager } },
    ...(p.status === undefined ? {} : { status: ownedStatus(p.status) }),
  };
}

function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
