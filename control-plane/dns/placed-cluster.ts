// What the DNS rules know about one cluster a record's Service or Ingress template is placed on.
import type { LoadBalancerStatus } from "../../shared/api/dns.ts";

/** A cluster the record's Service/Ingress template is placed on, as the control plane sees it. */
export interface PlacedCluster {
  name: string;
  zone?: string;
  region?: string;
  /** The Cluster's Ready condition is True. */
  ready: boolean;
  /** The member object's status.loadBalancer from the cluster's aggregatedStatus entry, if any. */
  loadBalancer?: LoadBalancerStatus;
  /** The member Service's ready endpoints (aggregatedStatus entry's readyEndpoints); undefined = not reported. */
  readyEndpoints?: number;
}
