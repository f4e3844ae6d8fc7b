// Who may call which Admin API method (DESIGN §7): an admin certificate (O=flotilla:admins) may
// call all of them; a viewer's (O=flotilla:viewers) the reads, and never to see a Secret; a
// certificate in the admin revocation list, or any while that list cannot be read, none. Pure.
import { ADMIN_ORGANIZATION, adminOfSubject, type AdminRole, VIEWER_ORGANIZATION } from "../../shared/pki.ts";

/**
 * The Admin service's methods, as the grpc-js implementation names them; Rollout is two: its
 * status (`rolloutStatus`, a read) and its commands (`rollout`: pause, resume, approve, abort, undo).
 */
export type AdminMethod = "listClusters" | "getPropagation" | "render" | "diff" | "plan" | "listWorks" | "listBindings" | "rolloutStatus" | "explain" | "createToken" | "listTokens" | "deleteToken" | "unjoin" | "rollout" | "createDashboardLogin";

/**
 * What a viewer may call: everything that reads (describe is getPropagation; explain shows no
 * object's content), and a dashboard login link, which signs a browser in with the caller's own
 * role (the dashboard only reads).
 */
const VIEWER_METHODS: ReadonlySet<AdminMethod> = new Set(["listClusters", "getPropagation", "render", "diff", "plan", "listWorks", "listBindings", "rolloutStatus", "explain", "createDashboardLogin"]);

/** An object a call would show or plan, once the control plane has resolved its kind. */
export interface KindRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

export interface AccessRequest {
  /** The subject of the caller's client certificate, as Node's PeerCertificate gives it. */
  subject: { CN?: string | string[]; O?: string | string[] } | undefined;
  method: AdminMethod;
  /** The objects the call shows (render, diff) or plans, once resolved; omitted before. */
  objects?: readonly KindRef[];
  /** The revocation list's word on the caller's certificate: none, the entry that revokes it, or why the list cannot be used. */
  revocation: { revokedBy?: string; listBroken?: string };
}

export type Access = { allowed: true; user: string; role: AdminRole } | { allowed: false; reason: string };

const isSecret = (o: KindRef) => o.apiVersion === "v1" && o.kind === "Secret";

/** Whether the call may go ahead, or the reason (for a PERMISSION_DENIED the caller reads) it may not. */
export function adminAccess(req: AccessRequest): Access {
  const who = adminOfSubject(req.subject);
  if (who === undefined) return { allowed: false, reason: `the Admin API needs an admin client certificate (O=${ADMIN_ORGANIZATION}, or O=${VIEWER_ORGANIZATION} to read; see \`flotilla certs admin\`)` };
  if (req.revocation.listBroken !== undefined) return { allowed: false, reason: `the Admin API refuses every certificate until the admin revocation list can be read: ${req.revocation.listBroken}` };
  if (req.revocation.revokedBy !== undefined) return { allowed: false, reason: `certificate revoked: ${who.role} ${who.user}'s certificate is in the admin revocation list (${req.revocation.revokedBy})` };
  if (who.role === "admin") return { allowed: true, ...who };
  if (!VIEWER_METHODS.has(req.method)) {
    return { allowed: false, reason: `${who.user} has a viewer certificate (O=${VIEWER_ORGANIZATION}), which may not call ${req.method}: bootstrap tokens, unjoin and rollout commands need an admin certificate (O=${ADMIN_ORGANIZATION})` };
  }
  const secret = (req.objects ?? []).find(isSecret);
  if (secret !== undefined) {
    const name = secret.namespace ? `${secret.namespace}/${secret.name}` : secret.name;
    return { allowed: false, reason: `${who.user} has a viewer certificate (O=${VIEWER_ORGANIZATION}), which may not ${req.method} a Secret (Secret ${name}): Secrets need an admin certificate (O=${ADMIN_ORGANIZATION})` };
  }
  return { allowed: true, ...who };
}
