// Where a member's Kubernetes API is reached through the control plane (issue 41): the
// ListClusters answer's member_api_url and the cluster's name. Pure.

/** What ListClusters says that these need. */
export interface MemberApiList {
  memberApiUrl: string;
  clusters: readonly { name: string }[];
}

export const NO_MEMBER_API = "the control plane serves no member API (start it with --member-api-address)";

/** A member's endpoint, `<member_api_url>/clusters/<name>`, or why it has none. */
export function memberEndpoint(list: MemberApiList, cluster: string): { server: string } | { error: string } {
  if (list.memberApiUrl === "") return { error: NO_MEMBER_API };
  if (!list.clusters.some((c) => c.name === cluster)) return { error: `cluster ${JSON.stringify(cluster)} is not registered` };
  return { server: `${list.memberApiUrl.replace(/\/+$/, "")}/clusters/${encodeURIComponent(cluster)}` };
}

/** The clusters `--clusters` names (comma-separated; `all` or empty: every registered one), or the names that are not registered. */
export function selectClusters(list: MemberApiList, value: string): { clusters: string[] } | { error: string } {
  if (list.memberApiUrl === "") return { error: NO_MEMBER_API };
  const all = list.clusters.map((c) => c.name);
  const asked = value.split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (asked.length === 0 || (asked.length === 1 && asked[0] === "all")) return all.length === 0 ? { error: "no member cluster is registered" } : { clusters: all };
  const unknown = asked.filter((n) => !all.includes(n));
  if (unknown.length > 0) return { error: `not registered: ${unknown.join(", ")} (the clusters are ${all.join(", ") || "none"})` };
  return { clusters: [...new Set(asked)] };
}
