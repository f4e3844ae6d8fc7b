// The dashboard's login tokens and sessions (issue 24): both are the caller's identity (user,
// role, and the certificate that asked, so the revocation list still applies), signed with a key
// every replica derives from the hub's key, so a token minted by one replica works on any other.
// A login token lives minutes and is exchanged once for a session cookie; a session lives
// --dashboard-session-ttl. Pure (the clock and the key are given).
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import type { AdminRole } from "../../shared/pki.ts";

/** Who a token speaks for: the admin or viewer certificate that asked for it. */
export interface DashboardIdentity {
  user: string;
  role: AdminRole;
  /** The asking certificate's SHA-256 fingerprint and serial number, as Node's PeerCertificate gives them. */
  fingerprint256: string;
  serialNumber: string;
}

export type TokenUse = "login" | "session";

interface Claims extends DashboardIdentity {
  use: TokenUse;
  /** Expiry, ms since the epoch. */
  exp: number;
  /** Makes each token unique (a login token is taken once). */
  nonce: string;
}

/** How long a login link works. */
export const LOGIN_TOKEN_TTL_MS = 120_000;

/** The key that signs dashboard tokens, derived from the hub's private key (the same on every replica). */
export function dashboardTokenKey(hubKeyPem: string): Buffer {
  return Buffer.from(hkdfSync("sha256", hubKeyPem, "flotilla.dev", "dashboard tokens v1", 32));
}

const b64 = (b: Buffer) => b.toString("base64url");
const mac = (key: Buffer, body: string) => createHmac("sha256", key).update(body).digest();

/** A signed token for `who`, valid `ttlMs` from `now`. */
export function signToken(key: Buffer, who: DashboardIdentity, use: TokenUse, now: number, ttlMs: number, nonce = b64(randomBytes(12))): string {
  const claims: Claims = { user: who.user, role: who.role, fingerprint256: who.fingerprint256, serialNumber: who.serialNumber, use, exp: now + ttlMs, nonce };
  const body = b64(Buffer.from(JSON.stringify(claims)));
  return `${body}.${b64(mac(key, body))}`;
}

export type Verified = { ok: true; identity: DashboardIdentity; exp: number; nonce: string } | { ok: false; reason: string };

/** The token's identity if it is well formed, signed with `key`, meant for `use`, and not expired. */
export function verifyToken(key: Buffer, token: string, use: TokenUse, now: number): Verified {
  const [body, sig, extra] = token.split(".");
  if (body === undefined || sig === undefined || extra !== undefined || body === "" || sig === "") return { ok: false, reason: "malformed token" };
  const want = mac(key, body);
  const got = Buffer.from(sig, "base64url");
  if (got.length !== want.length || !timingSafeEqual(got, want)) return { ok: false, reason: "bad signature" };
  let claims: Partial<Claims>;
  try {
    claims = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Partial<Claims>;
  } catch {
    return { ok: false, reason: "malformed token" };
  }
  if (claims.use !== use) return { ok: false, reason: `not a ${use} token` };
  if (typeof claims.exp !== "number" || claims.exp <= now) return { ok: false, reason: "expired" };
  if (typeof claims.user !== "string" || (claims.role !== "admin" && claims.role !== "viewer")) return { ok: false, reason: "malformed token" };
  return {
    ok: true,
    identity: { user: claims.user, role: claims.role, fingerprint256: String(claims.fingerprint256 ?? ""), serialNumber: String(claims.serialNumber ?? "") },
    exp: claims.exp,
    nonce: String(claims.nonce ?? ""),
  };
}

/**
 * The login tokens this replica has taken, until they expire: a login link works once here. (Another
 * replica behind the same address could take it once more within its two minutes; the session
 * it gives is the same identity either way.)
 */
export class UsedLogins {
  private readonly used = new Map<string, number>();

  /** Whether the nonce was still unused (and marks it used). */
  take(nonce: string, exp: number, now: number): boolean {
    for (const [n, e] of this.used) if (e <= now) this.used.delete(n);
    if (this.used.has(nonce)) return false;
    this.used.set(nonce, exp);
    return true;
  }
}
