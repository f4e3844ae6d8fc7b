// What the control plane and the agent agree on for the member API (issue 41, DESIGN §14): the
// identity a caller has in the member, which requests are writes, which headers pass each way, and
// the flow-control sizes. Pure.
import type { AdminRole } from "./pki.ts";

/** Response bytes an agent may send on one request before the hub grants more. */
export const MEMBER_API_WINDOW = 256 * 1024;
/** The largest data frame an agent sends. */
export const MEMBER_API_FRAME = 32 * 1024;
/** The largest request body the hub carries (the apiserver's own limit for one object is 3 MiB). */
export const MEMBER_API_MAX_BODY = 3 * 1024 * 1024;

/** The group the member's RBAC binds for each role. */
export const MEMBER_API_GROUPS: Readonly<Record<AdminRole, string>> = { admin: "flotilla:admins", viewer: "flotilla:viewers" };

/** The name the agent impersonates for a caller: flotilla:<role>:<user>. */
export function impersonatedUser(role: AdminRole, user: string): string {
  return `flotilla:${role}:${user}`;
}

/** The caller's headers that go on to the member; every other one (Authorization, Impersonate-*, cookies) stays behind. */
export const REQUEST_HEADERS: readonly string[] = ["accept", "accept-encoding", "content-type", "user-agent", "if-match", "if-none-match", "x-request-id"];
/** What an upgrade (exec, attach, port-forward) also needs to reach the member. */
export const UPGRADE_HEADERS: readonly string[] = ["connection", "upgrade", "sec-websocket-key", "sec-websocket-version", "sec-websocket-protocol", "x-stream-protocol-version"];
/** The member's headers that come back to the caller. */
export const RESPONSE_HEADERS: readonly string[] = ["content-type", "content-encoding", "warning", "audit-id", "retry-after", "etag", "cache-control", "last-modified", "x-kubernetes-pf-flowschema-uid", "x-kubernetes-pf-prioritylevel-uid"];

/** Keeps only the named headers, lower-cased, their values joined as HTTP joins repeated headers. */
export function passHeaders(headers: Readonly<Record<string, string | string[] | undefined>>, allowed: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (value === undefined || !allowed.includes(key)) continue;
    out[key] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/** The member's headers a caller gets: the documented ones, with values a header line can hold. */
export function responseHeaders(headers: Readonly<Record<string, string | string[] | undefined>>): Record<string, string> {
  return Object.fromEntries(Object.entries(passHeaders(headers, RESPONSE_HEADERS)).filter(([, v]) => /^[\t\x20-\x7e]*$/.test(v)));
}

/** Subresources that act inside a pod, node or service whatever the verb: writes. */
const ACTING_SUBRESOURCES = new Set(["exec", "attach", "portforward", "proxy"]);
const READ_METHODS = new Set(["GET", "HEAD"]);
/** A Namespace's own subresources (no namespaced resource has these names). */
const NAMESPACE_SUBRESOURCES = new Set(["status", "finalize"]);

/** What a request reaches in the member: its group, resource, and subresource, once the path is read. */
export interface MemberRequestTarget {
  /** "" for the core group. */
  group: string;
  /** The resource's plural name, or "" for discovery and other non-resource paths. */
  resource: string;
  subresource: string;
}

/**
 * The resource a member API path names (`/api/v1/namespaces/ns/pods/p/log`, `/apis/apps/v1/deployments`,
 * the old `/api/v1/watch/...`), or an empty resource for discovery, OpenAPI and other paths.
 */
export function requestTarget(path: string): MemberRequestTarget {
  const segments = path.split("?")[0]!.split("/").filter((s) => s !== "");
  let rest: string[];
  let group: string;
  if (segments[0] === "api" && segments.length >= 2) {
    group = "";
    rest = segments.slice(2);
  } else if (segments[0] === "apis" && segments.length >= 3) {
    group = segments[1]!;
    rest = segments.slice(3);
  } else return { group: "", resource: "", subresource: "" };
  if (rest[0] === "watch") rest = rest.slice(1);
  // namespaces/<ns>/<resource>/...; a namespace itself (namespaces/<ns>[/status|/finalize]) is the resource "namespaces".
  if (rest[0] === "namespaces" && rest.length >= 3 && !NAMESPACE_SUBRESOURCES.has(rest[2] as string)) rest = rest.slice(2);
  return { group, resource: rest[0] ?? "", subresource: rest[2] ?? "" };
}

/** Whether a request changes or acts in the member: any verb but GET and HEAD, an upgrade, or exec, attach, port-forward and proxy. */
export function isWriteRequest(method: string, path: string, headers: Readonly<Record<string, string | string[] | undefined>> = {}): boolean {
  if (!READ_METHODS.has(method.toUpperCase())) return true;
  if (headers.upgrade !== undefined) return true;
  return ACTING_SUBRESOURCES.has(requestTarget(path).subresource);
}

/** Whether a request reads or touches Secrets (their contents are for admins only). */
export function touchesSecrets(path: string): boolean {
  const t = requestTarget(path);
  return t.group === "" && t.resource === "secrets";
}

/** Why a viewer may not make this request, or undefined when it may. */
export function viewerRefusal(method: string, path: string, headers: Readonly<Record<string, string | string[] | undefined>>): string | undefined {
  if (isWriteRequest(method, path, headers)) return "a viewer certificate only reads: writes, exec, attach, port-forward and proxy need an admin certificate";
  if (touchesSecrets(path)) return "a viewer certificate may not read Secrets: they need an admin certificate";
  return undefined;
}

/** A path below the apiserver's root, with its query: no traversal, no escape, no empty segment, nothing a header or request line could not carry. */
export function validPath(path: string): boolean {
  if (!path.startsWith("/") || path.length > 8192) return false;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) <= 0x20 || path.charCodeAt(i) >= 0x7f) return false;
  const bare = path.split("?")[0] as string;
  // No escapes in the path: the apiserver decodes them, so "%73ecrets" would pass as another resource here than it is there.
  if (bare.includes("%")) return false;
  const segments = bare.slice(1).split("/");
  if (segments.length === 1 && segments[0] === "") return true;
  // A trailing slash is an empty last segment; an empty one elsewhere is not.
  return segments.every((s, i) => (s !== "" || i === segments.length - 1) && s !== "." && s !== "..");
}
