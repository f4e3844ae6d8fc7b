// Clusters and ClusterProfiles for the cluster-profiles tables.
import type { Cluster, Condition } from "../../shared/api/types.ts";
import { CLUSTER_MANAGER_LABEL, CLUSTER_PROFILE_API_VERSION, CLUSTER_PROFILE_KIND, type ClusterProfile, type ClusterProfileStatus } from "./cluster-profile.ts";

export const NOW = "2026-12-01T10:00:00Z";
export const EARLIER = "2026-11-30T08:00:00Z";
export const NS = "flotilla-system";
export const ACCESS = { url: "https://flotilla.example:9443", caData: Buffer.from("-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n").toString("base64") };

export const ready = (status: Condition["status"], o: Partial<Condition> = {}): Condition => ({
  type: "Ready",
  status,
  reason: status === "True" ? "ClusterReady" : "ClusterNotReachable",
  message: status === "True" ? "heartbeats arrive" : "no heartbeat for 40s",
  lastTransitionTime: EARLIER,
  ...o,
});

/** A member Cluster: joined and Ready unless told otherwise. */
export function cluster(o: { name?: string; ready?: Condition | null; version?: string | null; region?: string; zone?: string; provider?: string; deleting?: boolean; accepted?: Condition["status"]; heartbeat?: boolean } = {}): Cluster {
  const conditions: Condition[] = [];
  const r = o.ready === undefined ? ready("True") : o.ready;
  if (r !== null) conditions.push(r);
  if (o.accepted !== undefined) conditions.push({ type: "Accepted", status: o.accepted, reason: o.accepted === "True" ? "HubAccepted" : "AwaitingAcceptance", message: "run flotillactl accept", lastTransitionTime: EARLIER });
  const version = o.version === undefined ? "v1.35.0" : o.version;
  return {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "Cluster",
    metadata: { name: o.name ?? "member1", uid: "cluster-uid", ...(o.deleting ? { deletionTimestamp: NOW } : {}) },
    spec: { ...(o.region === undefined ? {} : { region: o.region }), ...(o.zone === undefined ? {} : { zone: o.zone }), ...(o.provider === undefined ? {} : { provider: o.provider }) },
    status: { conditions, ...(version === null ? {} : { kubernetesVersion: version }), ...(o.heartbeat === false ? {} : version === null ? {} : { lastHeartbeatTime: EARLIER }) },
  };
}

/** A served ClusterProfile: Flotilla's unless the label or the manager says otherwise. */
export function profile(o: { name?: string; label?: string | null; manager?: string; displayName?: string; status?: ClusterProfileStatus; deleting?: boolean } = {}): ClusterProfile {
  const label = o.label === undefined ? "flotilla" : o.label;
  return {
    apiVersion: CLUSTER_PROFILE_API_VERSION,
    kind: CLUSTER_PROFILE_KIND,
    metadata: { name: o.name ?? "member1", namespace: NS, uid: "profile-uid", resourceVersion: "41", ...(label === null ? {} : { labels: { [CLUSTER_MANAGER_LABEL]: label } }), ...(o.deleting ? { deletionTimestamp: NOW } : {}) },
    spec: { displayName: o.displayName ?? o.name ?? "member1", clusterManager: { name: o.manager ?? "flotilla" } },
    ...(o.status === undefined ? {} : { status: o.status }),
  };
}
