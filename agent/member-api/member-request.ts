// What the agent makes of a MemberApiRequest before it reaches the member (issue 41): refused with a
// Kubernetes Status, or the method, path and headers to send, as the caller. Pure.
import type { MemberApiRequest } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { impersonatedUser, isWriteRequest, MEMBER_API_GROUPS, passHeaders, REQUEST_HEADERS, UPGRADE_HEADERS, validPath, viewerRefusal } from "../../shared/member-api.ts";
import type { AdminRole } from "../../shared/pki.ts";

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]);
/** A caller's name as it goes into a header: printable ASCII, not too long. */
const USER = /^[\x21-\x7e][\x20-\x7e]{0,252}$/;

/** A refusal, as the apiserver would answer it. */
export interface Refusal {
  status: number;
  reason: string;
  message: string;
}

/** What to send to the member's apiserver. */
export interface MemberCall {
  method: string;
  path: string;
  headers: Record<string, string>;
}

/**
 * The member request for a hub's request, or why it is refused. `allowWrites`: the agent's
 * --member-api-writes. Whatever the hub sends, the identity is flotilla:<role>:<user> in its role's
 * group, never a header of the caller's.
 */
export function memberCall(req: MemberApiRequest, allowWrites: boolean, cluster: string): MemberCall | Refusal {
  const method = req.method.toUpperCase();
  if (!METHODS.has(method)) return { status: 405, reason: "MethodNotAllowed", message: `the member API does not carry ${JSON.stringify(req.method.slice(0, 16))}` };
  if (!validPath(req.path)) return { status: 400, reason: "BadRequest", message: "the path must start with / and hold no . or .. segment, no %-escape, no empty segment, no space and no control character" };
  if (req.role !== "admin" && req.role !== "viewer") return { status: 403, reason: "Forbidden", message: `unknown role ${JSON.stringify(req.role.slice(0, 16))}` };
  const role: AdminRole = req.role;
  if (!USER.test(req.user)) return { status: 403, reason: "Forbidden", message: "the caller's name must be 1 to 253 printable ASCII characters" };
  const passed = passHeaders(req.headers, req.upgrade ? [...REQUEST_HEADERS, ...UPGRADE_HEADERS] : REQUEST_HEADERS);
  // A value that could end its header line (CR, LF) or is not text is dropped: upgrades write their head by hand.
  const headers = Object.fromEntries(Object.entries(passed).filter(([, v]) => /^[\t\x20-\x7e]*$/.test(v)));
  if (role === "viewer") {
    const why = viewerRefusal(method, req.path, req.upgrade ? { ...req.headers, upgrade: "yes" } : req.headers);
    if (why !== undefined) return { status: 403, reason: "Forbidden", message: `${req.user}: ${why}` };
  }
  if ((req.upgrade || isWriteRequest(method, req.path, req.headers)) && !allowWrites) {
    return { status: 403, reason: "Forbidden", message: `writes through the member API (${method} ${req.path.split("?")[0]}) are off in ${cluster}: its agent runs without --member-api-writes` };
  }
  return { method, path: req.path, headers: { ...headers, "impersonate-user": impersonatedUser(role, req.user), "impersonate-group": MEMBER_API_GROUPS[role] } };
}

/** A refusal as a Kubernetes Status body. */
export function statusBody(r: Refusal): Buffer {
  return Buffer.from(JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: r.message, reason: r.reason, code: r.status }));
}

/** The request line and headers of an upgrade, written by hand on the agent's own connection to the apiserver. */
export function upgradeHead(method: string, path: string, host: string, headers: Readonly<Record<string, string>>): string {
  const lines = Object.entries({ host, ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
  return `${method} ${path} HTTP/1.1\r\n${lines.join("")}\r\n`;
}

/** A refusal of an upgrade, as the raw HTTP answer the caller's socket gets. */
export function rawRefusal(r: Refusal): Buffer {
  const body = statusBody(r);
  return Buffer.concat([Buffer.from(`HTTP/1.1 ${r.status} ${r.reason}\r\ncontent-type: application/json\r\ncontent-length: ${body.byteLength}\r\nconnection: close\r\n\r\n`), body]);
}

/** The most of an upgrade's answer read before its head must have ended. */
const MAX_UPGRADE_HEAD = 16 * 1024;

/**
 * What the start of the apiserver's answer to an upgrade says: undefined while its head may still
 * be coming; else its status, and whether it switched protocols (101 with a complete head).
 */
export function upgradeAnswer(seen: Buffer): { status: number; switched: boolean } | undefined {
  const end = seen.indexOf("\r\n\r\n");
  if (end < 0 && seen.byteLength < MAX_UPGRADE_HEAD) return undefined;
  const status = /^HTTP\/1\.[01] (\d{3}) /.exec(seen.subarray(0, 16).toString("latin1"))?.[1];
  return { status: Number(status ?? 502), switched: end >= 0 && status === "101" };
}
