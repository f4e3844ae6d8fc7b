// Who may load what from the dashboard (issue 24). The dashboard is read-only: any method but GET
// and HEAD is refused for everyone. Its page and assets are public (they hold no fleet data); every
// /api/ path needs an admin or viewer identity, from a client certificate (as the Admin API) or a
// session cookie exchanged for a login token, and is refused while the identity's certificate is
// in the admin revocation list or the list cannot be read. Pure.
import { adminOfSubject } from "../../shared/pki.ts";
import type { DashboardIdentity, Verified } from "./dashboard-tokens.ts";

export interface DashboardRequest {
  method: string;
  path: string;
  /** The client certificate, when the browser sent one the CA signed. */
  cert?: { subject?: { CN?: string | string[]; O?: string | string[] }; fingerprint256?: string; serialNumber?: string };
  /** The session cookie's verdict, when there is a cookie. */
  session?: Verified;
  /** The revocation list's word on an identity's certificate. */
  revocation: (who: DashboardIdentity) => { revokedBy?: string; listBroken?: string };
}

export type DashboardAccess = { allowed: true; identity?: DashboardIdentity; via?: "certificate" | "session" } | { allowed: false; status: 401 | 403 | 405; reason: string };

/** Paths anyone may load: the page and its assets, and the login exchange (which checks its token). */
export function isPublicPath(path: string): boolean {
  return path === "/" || path === "/index.html" || path === "/login" || path.startsWith("/assets/");
}

export function dashboardAccess(req: DashboardRequest): DashboardAccess {
  if (req.method !== "GET" && req.method !== "HEAD") {
    return { allowed: false, status: 405, reason: `the dashboard is read-only: ${req.method} is refused (writes go through flotillactl with an admin certificate)` };
  }
  if (isPublicPath(req.path)) return { allowed: true };
  const fromCert = certIdentity(req.cert);
  const identity = fromCert ?? (req.session?.ok ? req.session.identity : undefined);
  if (identity === undefined) {
    const why = req.session !== undefined && !req.session.ok ? `the session is not valid (${req.session.reason})` : "no client certificate and no session";
    return { allowed: false, status: 401, reason: `${why}: sign in with the link \`flotillactl dashboard\` prints` };
  }
  const revocation = req.revocation(identity);
  if (revocation.listBroken !== undefined) return { allowed: false, status: 403, reason: `the dashboard refuses every identity until the admin revocation list can be read: ${revocation.listBroken}` };
  if (revocation.revokedBy !== undefined) return { allowed: false, status: 403, reason: `certificate revoked: ${identity.role} ${identity.user}'s certificate is in the admin revocation list (${revocation.revokedBy})` };
  return { allowed: true, identity, via: fromCert === undefined ? "session" : "certificate" };
}

function certIdentity(cert: DashboardRequest["cert"]): DashboardIdentity | undefined {
  const who = adminOfSubject(cert?.subject);
  if (who === undefined) return undefined;
  return { ...who, fingerprint256: cert?.fingerprint256 ?? "", serialNumber: cert?.serialNumber ?? "" };
}
