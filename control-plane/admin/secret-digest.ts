// Secret values as flotillactl shows them (render, plan, diff): `hmac-sha256:<16 hex>`, an
// HMAC-SHA-256 under a per-fleet key of the `sha256:<12 hex>` digest that shared/secret-redaction.ts
// makes (in the agent for live objects, before the wire; here for rendered ones). A plain digest
// of a short password is reversed by hashing guesses, and these outputs end up in CI logs and
// reviews; without the key a guess cannot be checked. Both sides of a diff are keyed the same
// way, so equal values still show equal. The agent's plain digest travels only to the control
// plane, over mTLS, and the control plane holds the fleet's Secret values anyway. Pure.
import { createHmac, hkdfSync } from "node:crypto";
import type { KubeObject } from "../../shared/api/types.ts";
import { redactSecret } from "../../shared/secret-redaction.ts";

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
const PLAIN_DIGEST = /^sha256:[0-9a-f]{12}$/;

/**
 * The fleet's digest key, derived (HKDF-SHA-256) from the hub's TLS private key: every replica
 * serves with it and nothing outside the control plane holds it, so there is nothing new to store
 * or hand out. Rotating that key changes the digests (only their look: they still compare).
 */
export function secretDigestKey(hubKeyPem: string): Buffer {
  return Buffer.from(hkdfSync("sha256", hubKeyPem, "flotilla.dev", "secret value digests v1", 32));
}

/** A Secret with each value (data, stringData, last-applied annotation) as a keyed digest; other kinds unchanged. */
export function keyedRedaction(obj: KubeObject, key: Buffer): KubeObject {
  const plain = redactSecret(obj);
  if (plain === obj) return obj;
  const out: KubeObject = { ...plain };
  for (const field of ["data", "stringData"] as const) {
    const values: unknown = plain[field];
    if (isRecord(values)) out[field] = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, keyed(v, key)]));
  }
  const annotations = plain.metadata?.annotations;
  if (annotations !== undefined && Object.hasOwn(annotations, LAST_APPLIED)) {
    out.metadata = { ...plain.metadata, annotations: { ...annotations, [LAST_APPLIED]: keyed(annotations[LAST_APPLIED], key) } };
  }
  return out;
}

function keyed(v: unknown, key: Buffer): string {
  // redactSecret leaves nothing else; anything else is not shown.
  if (typeof v !== "string" || !PLAIN_DIGEST.test(v)) return "hmac-sha256:invalid";
  return `hmac-sha256:${createHmac("sha256", key).update(v).digest("hex").slice(0, 16)}`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
