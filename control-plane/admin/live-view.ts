// What `flotillactl diff` compares: the rendered object against the member's live object, cut
// down to the fields Flotilla sets (the rest belongs to the member: defaults, status, other
// managers), with Secret values replaced by a short digest on both sides, so a diff shows which
// keys differ and never what they hold. Pure.
import { createHash } from "node:crypto";
import type { KubeObject } from "../../shared/api/types.ts";

type Json = unknown;

/** The live object restricted to the paths the desired object sets (objects by key; lists and scalars whole). */
export function projectOnto(live: Json, desired: Json): Json {
  if (isRecord(desired) && isRecord(live)) {
    const out: Record<string, Json> = {};
    for (const key of Object.keys(desired)) if (Object.hasOwn(live, key)) out[key] = projectOnto(live[key], desired[key]);
    return out;
  }
  return live;
}

/** A Secret with each data and stringData value replaced by `sha256:<12 hex>`; other kinds unchanged. */
export function redactSecret(obj: KubeObject): KubeObject {
  if (obj.apiVersion !== "v1" || obj.kind !== "Secret") return obj;
  const digest = (v: unknown, encoding: "base64" | "utf8") =>
    `sha256:${createHash("sha256").update(typeof v === "string" ? Buffer.from(v, encoding) : Buffer.alloc(0)).digest("hex").slice(0, 12)}`;
  const out: KubeObject = { ...obj };
  // data is base64 of the bytes, stringData the bytes themselves: the same value digests the same.
  if (isRecord(obj.data)) out.data = Object.fromEntries(Object.entries(obj.data).map(([k, v]) => [k, digest(v, "base64")]));
  if (isRecord(obj.stringData)) out.stringData = Object.fromEntries(Object.entries(obj.stringData).map(([k, v]) => [k, digest(v, "utf8")]));
  return out;
}

/** Serialised manifests with any Secret's values replaced by digests, as render and plan show them. */
export function redactManifests(manifests: Uint8Array[]): Buffer[] {
  return manifests.map((m) => Buffer.from(JSON.stringify(redactSecret(JSON.parse(Buffer.from(m).toString("utf8")) as KubeObject))));
}

/** The pair to diff for one manifest: rendered and live (undefined when absent in the member). */
export function diffPair(rendered: KubeObject, live: KubeObject | undefined): { rendered: KubeObject; live: KubeObject | undefined } {
  const r = redactSecret(rendered);
  return { rendered: r, live: live === undefined ? undefined : (projectOnto(redactSecret(live), r) as KubeObject) };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
