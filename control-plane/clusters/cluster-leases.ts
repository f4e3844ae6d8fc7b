// The clusters' Leases in the control cluster: one per Cluster, named as it, in their own
// namespace (kube-node-lease's layout), cached by an informer on every replica.
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { Cluster } from "../../shared/api/types.ts";
import { Informer } from "../../shared/informer.ts";
import { isKubeStatus, type KubeRest, objectPath, type ResourceInfo } from "../../shared/kube-rest.ts";
import { counter } from "../../shared/metrics.ts";
import type { ClusterLeaseSpec } from "./cluster-lease.ts";

const LEASES: ResourceInfo = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", plural: "leases", namespaced: true };
/** All replicas write cluster leases as one manager: the holder changes, the fields' owner does not. */
const FIELD_MANAGER = "flotilla-cluster-lease";

const leaseWrites = counter("flotilla_cluster_lease_writes_total", "Cluster Lease writes by this replica: acquire (none, or another replica held it) or renew.", ["reason"]);

/**
 * Where the lease's holder serves the other replicas (host:port of its gRPC listener), so the
 * leader can collect what the holder's agents send it (peers/). Absent: an older replica, or one
 * started without a peer address.
 */
export const HOLDER_ADDRESS_ANNOTATION = "flotilla.dev/holder-address";

/**
 * Where the lease's holder serves the member API to the other replicas (host:port; issue 41), so
 * a replica a caller reached forwards a request for this cluster to the one its agent streams to.
 */
export const HOLDER_MEMBER_API_ANNOTATION = "flotilla.dev/holder-member-api-address";

export interface ClusterLease {
  spec?: ClusterLeaseSpec;
  metadata: { name?: string; resourceVersion?: string; annotations?: Record<string, string> };
}

export class ClusterLeases {
  private readonly informer: Informer<ClusterLease>;
  private readonly rest: KubeRest;
  private readonly namespace: string;
  private readonly log: Logger;
  private readonly annotations: Record<string, string> | undefined;

  /** holderAddress, holderMemberApiAddress: this replica's addresses for its peers, written into every lease it writes. */
  constructor(opts: { kc: KubeConfig; rest: KubeRest; namespace: string; log: Logger; holderAddress?: string; holderMemberApiAddress?: string }) {
    const annotations = {
      ...(opts.holderAddress === undefined ? {} : { [HOLDER_ADDRESS_ANNOTATION]: opts.holderAddress }),
      ...(opts.holderMemberApiAddress === undefined ? {} : { [HOLDER_MEMBER_API_ANNOTATION]: opts.holderMemberApiAddress }),
    };
    this.annotations = Object.keys(annotations).length === 0 ? undefined : annotations;
    this.rest = opts.rest;
    this.namespace = opts.namespace;
    this.log = opts.log;
    this.informer = new Informer<ClusterLease>({ kc: opts.kc, rest: opts.rest, resource: LEASES, namespace: opts.namespace, log: opts.log });
  }

  /** Calls fn with the cluster's name whenever its lease comes, changes or goes. */
  onChange(fn: (cluster: string) => void): void {
    const named = (l: ClusterLease) => fn(l.metadata.name ?? "");
    this.informer.on({ add: named, update: named, delete: named });
  }

  /** Creates the namespace if missing, then lists and watches the leases. */
  async start(): Promise<void> {
    await this.rest.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: this.namespace } } }).catch((err: unknown) => {
      // Already there; or not ours to create (then it must exist, and the informer says if not).
      if (isKubeStatus(err, 403)) this.log.warn({ namespace: this.namespace }, "may not create the cluster lease namespace; expecting it to exist");
      else if (!isKubeStatus(err, 409)) throw err;
    });
    await this.informer.start();
  }

  stop(): void {
    this.informer.stop();
  }

  get(cluster: string): ClusterLease | undefined {
    return this.informer.get(cluster, this.namespace);
  }

  /** Every cluster's lease, as cached. */
  list(): ClusterLease[] {
    return this.informer.list();
  }

  /**
   * Writes the cluster's lease (server-side apply). With the resourceVersion this replica last
   * saw, so a replica whose cache is behind cannot overwrite a newer holder: a 409 says to look
   * again once the cache caught up (returns false), and so does a 404 (the lease it saw is gone).
   */
  async write(cluster: Cluster, spec: ClusterLeaseSpec, seenVersion: string | undefined, reason: "acquire" | "renew"): Promise<boolean> {
    const name = cluster.metadata.name ?? "";
    // Owned by its Cluster, as a node's lease by its Node: the garbage collector removes it with the Cluster.
    const owner = cluster.metadata.uid === undefined ? [] : [{ apiVersion: cluster.apiVersion, kind: "Cluster", name, uid: cluster.metadata.uid }];
    const body = {
      apiVersion: LEASES.apiVersion,
      kind: LEASES.kind,
      metadata: {
        name,
        namespace: this.namespace,
        ownerReferences: owner,
        ...(this.annotations === undefined ? {} : { annotations: this.annotations }),
        ...(seenVersion === undefined ? {} : { resourceVersion: seenVersion }),
      },
      spec,
    };
    try {
      await this.rest.apply(objectPath(LEASES, this.namespace, name), body, FIELD_MANAGER);
    } catch (err) {
      if (isKubeStatus(err, 409, 404)) return false;
      throw err;
    }
    leaseWrites.inc({ reason });
    return true;
  }
}
