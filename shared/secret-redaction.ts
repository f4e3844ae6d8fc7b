// Secret values never leave where they live in the clear (DESIGN §7): the agent redacts the live
// objects it sends for `flotillactl diff`, and the Admin API redacts what it renders, the same
// way, so the two sides still compare. Pure.
import { createHash } from "node:crypto";
import type { KubeObject } from "./api/types.ts";

/** client-side `kubectl apply` keeps the whole object, Secret values included, in this annotation. */
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
const DIGEST = /^sha256:[0-9a-f]{12}$/;

/**
 * `sha256:<12 hex>` of a value's bytes. A value that already is a digest was redacted by the agent
 * and stays: this can only be told apart where a raw value cannot look like one (base64 data has
 * no ':'; the annotation is JSON), so stringData is always digested.
 */
function digest(v: unknown, encoding: "base64" | "utf8", mayBeDigest: boolean): string {
  if (mayBeDigest && typeof v === "string" && DIGEST.test(v)) return v;
  return `sha256:${createHash("sha256").update(typeof v === "string" ? Buffer.from(v, encoding) : Buffer.alloc(0)).digest("hex").slice(0, 12)}`;
}

/**
 * A Secret with each data and stringData value replaced by `sha256:<12 hex>` of its bytes (the
 * keys stay, so a diff shows which keys differ and never what they hold), and the
 * last-applied-configuration annotation, which repeats them, by its digest; other kinds unchanged.
 * Idempotent on what the agent sends (live objects have no stringData).
 */
export function redactSecret(obj: KubeObject): KubeObject {
  if (obj.apiVersion !== "v1" || obj.kind !== "Secret") return obj;
  const out: KubeObject = { ...obj };
  // data is base64 of the bytes, stringData the bytes themselves: the same value digests the same.
  if (isRecord(obj.data)) out.data = Object.fromEntries(Object.entries(obj.data).map(([k, v]) => [k, digest(v, "base64", true)]));
  if (isRecord(obj.stringData)) out.stringData = Object.fromEntries(Object.entries(obj.stringData).map(([k, v]) => [k, digest(v, "utf8", false)]));
  const annotations = obj.metadata?.annotations;
  if (annotations !== undefined && Object.hasOwn(annotations, LAST_APPLIED)) {
    out.metadata = { ...obj.metadata, annotations: { ...annotations, [LAST_APPLIED]: digest(annotations[LAST_APPLIED], "utf8", true) } };
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
