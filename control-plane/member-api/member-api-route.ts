// Which member and which apiserver path a member API request names (issue 41): /clusters/<name>
// followed by the path below the member's apiserver root, or why the request is refused. Pure.
import { validPath } from "../../shared/member-api.ts";

/** A Cluster's name: a DNS subdomain (what the apiserver allows for a Cluster object). */
const CLUSTER_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

export type MemberRoute = { cluster: string; path: string } | { status: number; reason: string; message: string };

/** The route of a request's raw URL (path and query, as the request line carries it). */
export function memberRoute(rawUrl: string): MemberRoute {
  const m = /^\/clusters\/([^/?]*)(.*)$/.exec(rawUrl);
  if (m === null) return { status: 404, reason: "NotFound", message: "the member API serves /clusters/<name>/…: one Kubernetes API endpoint per member cluster" };
  const cluster = m[1] as string;
  if (!CLUSTER_NAME.test(cluster)) return { status: 400, reason: "BadRequest", message: `${JSON.stringify(cluster.slice(0, 64))} is not a cluster name` };
  const rest = m[2] as string;
  const path = rest === "" ? "/" : rest.startsWith("?") ? `/${rest}` : rest;
  if (!validPath(path)) return { status: 400, reason: "BadRequest", message: "the path must hold no . or .. segment, no %-escape, no empty segment, no space and no control character" };
  return { cluster, path };
}
