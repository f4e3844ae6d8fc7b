// Bootstrap tokens (DESIGN §7), shaped like Kubernetes' own: `<id>.<secret>`, 6 and 16 characters
// of [a-z0-9], kept as a Secret `flotilla-token-<id>` in the control plane's namespace with an
// expiry. A new member presents one with its CSR; the token is good for any number of
// registrations until it expires or is deleted. Pure, except for the random source.
import { randomInt, timingSafeEqual } from "node:crypto";
import type { KubeObject } from "../../shared/api/types.ts";

export const TOKEN_SECRET_TYPE = "flotilla.dev/bootstrap-token";
export const TOKEN_SECRET_PREFIX = "flotilla-token-";
const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
const FORMAT = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;

export interface BootstrapToken {
  id: string;
  secret: string;
}

/** What `token list` shows of a token (never its secret). */
export interface TokenInfo {
  id: string;
  expires: string;
  description: string;
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

/** The Secret that stores a token. */
export function tokenSecret(t: BootstrapToken, namespace: string, expires: Date, description: string): KubeObject {
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

/** What a token Secret says, for listing. */
export function tokenInfo(stored: KubeObject): TokenInfo {
  const data = (stored.data ?? {}) as Record<string, string>;
  return { id: unb64(data["token-id"]), expires: unb64(data.expiration), description: unb64(data.description) };
}

function b64(s: string): string {
  return Buffer.from(s, "utf8").toString("base64");
}

function unb64(s: string | undefined): string {
  return s === undefined ? "" : Buffer.from(s, "base64").toString("utf8");
}
