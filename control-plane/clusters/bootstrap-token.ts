// Bootstrap tokens (DESIGN §7), shaped like Kubernetes' own: `<id>.<secret>`, 6 and 16 characters
// of [a-z0-9], kept as a Secret `flotilla-token-<id>` in the control plane's namespace with an
// expiry of at most 7 days. A new member presents one with its CSR; the token is good until it
// expires or is deleted, for any number of registrations or for as many as it was given
// (`uses-allowed`; the Secret counts them in `uses`). Pure, except for the random source.
import { randomInt, timingSafeEqual } from "node:crypto";
import type { KubeObject } from "../../shared/api/types.ts";

export const TOKEN_SECRET_TYPE = "flotilla.dev/bootstrap-token";
export const TOKEN_SECRET_PREFIX = "flotilla-token-";
const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
const FORMAT = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
export const DEFAULT_TOKEN_TTL_SECONDS = 24 * 3600;
export const MAX_TOKEN_TTL_SECONDS = 7 * 24 * 3600;

export interface BootstrapToken {
  id: string;
  secret: string;
}

/** What `token list` shows of a token (never its secret). */
export interface TokenInfo {
  id: string;
  expires: string;
  description: string;
  /** Registrations it is good for; 0: any number. */
  usesAllowed: number;
  /** Registrations made with it (counted only when usesAllowed is set). */
  uses: number;
}

/** The TTL a token gets for a requested one (0: the default), or why it is refused. */
export function tokenTtlSeconds(requested: number): { seconds: number } | { error: string } {
  if (requested === 0) return { seconds: DEFAULT_TOKEN_TTL_SECONDS };
  if (requested > MAX_TOKEN_TTL_SECONDS) {
    return { error: `a bootstrap token is good for at most 168h (7 days); ${hours(requested)} was asked for: make a new token when it runs out` };
  }
  return { seconds: requested };
}

function hours(seconds: number): string {
  return seconds % 3600 === 0 ? `${seconds / 3600}h` : `${seconds}s`;
}

/** A new random token. */
export function newToken(pick: (n: number) => number = (n) => randomInt(n)): BootstrapToken {
  const chars = (len: number) => Array.from({ length: len }, () => ALPHABET[pick(ALPHABET.length)]).join("");
  return { id: chars(6), secret: chars(16) };
}

export function formatToken(t: BootstrapToken): string {
  return `${t.id}.${t.secret}`;
}

/** Reads `<id>.<secret>`; the message never repeats the secret. */
export function parseToken(text: string): BootstrapToken | { error: string } {
  const m = FORMAT.exec(text.trim());
  if (m === null) return { error: "a bootstrap token reads <6 characters>.<16 characters>, lowercase letters and digits" };
  return { id: m[1] as string, secret: m[2] as string };
}

/** The Secret that stores a token; usesAllowed 0 (or absent): any number of registrations. */
export function tokenSecret(t: BootstrapToken, namespace: string, expires: Date, description: string, usesAllowed = 0): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: `${TOKEN_SECRET_PREFIX}${t.id}`, namespace, labels: { "flotilla.dev/bootstrap-token": "true" } },
    type: TOKEN_SECRET_TYPE,
    data: {
      "token-id": b64(t.id),
      "token-secret": b64(t.secret),
      expiration: b64(expires.toISOString()),
      description: b64(description),
      ...(usesAllowed > 0 ? { "uses-allowed": b64(String(usesAllowed)), uses: b64("0") } : {}),
    },
  };
}

/** Whether a presented token matches its stored Secret and has not expired. */
export function checkToken(stored: KubeObject | undefined, presented: BootstrapToken, now: Date): { ok: true } | { error: string } {
  const refused = { error: "the bootstrap token is not valid (unknown, deleted or wrong)" };
  if (stored === undefined || stored.type !== TOKEN_SECRET_TYPE) return refused;
  const data = (stored.data ?? {}) as Record<string, string>;
  const secret = Buffer.from(unb64(data["token-secret"]));
  const given = Buffer.from(presented.secret);
  if (unb64(data["token-id"]) !== presented.id || secret.length !== given.length || !timingSafeEqual(secret, given)) return refused;
  const expires = Date.parse(unb64(data.expiration));
  if (Number.isNaN(expires)) return { error: "the bootstrap token has no valid expiration" };
  if (expires <= now.getTime()) return { error: `the bootstrap token expired at ${new Date(expires).toISOString()}` };
  return { ok: true };
}

/**
 * The stored token with one more registration counted, for a guarded update: `next` is undefined
 * when the token has no limit (nothing to write). Refused when none is left, or the count is broken.
 */
export function spendUse(stored: KubeObject): { next: KubeObject | undefined } | { error: string } {
  const uses = readUses(stored);
  if ("error" in uses) return uses;
  if (uses.allowed === 0) return { next: undefined };
  if (uses.used >= uses.allowed) return { error: `the bootstrap token has no uses left (it was good for ${uses.allowed} registration${uses.allowed === 1 ? "" : "s"}, all made)` };
  return { next: withUses(stored, uses.used + 1) };
}

/** The stored token with one registration given back (one that was counted, then refused); undefined when there is none to give back. */
export function returnUse(stored: KubeObject): KubeObject | undefined {
  const uses = readUses(stored);
  if ("error" in uses || uses.allowed === 0 || uses.used === 0) return undefined;
  return withUses(stored, uses.used - 1);
}

function readUses(stored: KubeObject): { allowed: number; used: number } | { error: string } {
  const data = (stored.data ?? {}) as Record<string, string>;
  if (data["uses-allowed"] === undefined) return { allowed: 0, used: 0 };
  const allowed = count(unb64(data["uses-allowed"]));
  const used = count(unb64(data.uses) || "0");
  // A count someone edited into nonsense refuses rather than guessing (it cannot grant more).
  if (allowed === undefined || allowed === 0 || used === undefined) return { error: "the bootstrap token has no valid usage count" };
  return { allowed, used };
}

function count(text: string): number | undefined {
  return /^(0|[1-9][0-9]{0,8})$/.test(text) ? Number(text) : undefined;
}

function withUses(stored: KubeObject, used: number): KubeObject {
  return { ...stored, data: { ...(stored.data as Record<string, string>), uses: b64(String(used)) } };
}

/** What a token Secret says, for listing. */
export function tokenInfo(stored: KubeObject): TokenInfo {
  const data = (stored.data ?? {}) as Record<string, string>;
  const uses = readUses(stored);
  const counted = "error" in uses ? { usesAllowed: 0, uses: 0 } : { usesAllowed: uses.allowed, uses: uses.used };
  return { id: unb64(data["token-id"]), expires: unb64(data.expiration), description: unb64(data.description), ...counted };
}

function b64(s: string): string {
  return Buffer.from(s, "utf8").toString("base64");
}

function unb64(s: string | undefined): string {
  return s === undefined ? "" : Buffer.from(s, "base64").toString("utf8");
}
