// What `flotillactl diff` compares: the rendered object against the member's live object, cut
// down to the fields Flotilla sets (the rest belongs to the member: defaults, status, other
// managers), with Secret values replaced by a short keyed digest on both sides (secret-digest.ts),
// so a diff shows which keys differ and never what they hold (the agent sends live Secrets
// already redacted). Pure.
import type { KubeObject } from "../../shared/api/types.ts";
import { keyedRedaction } from "./secret-digest.ts";

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

/** Serialised manifests with any Secret's values replaced by keyed digests, as render and plan show them. */
export function redactManifests(manifests: Uint8Array[], key: Buffer): Buffer[] {
  return manifests.map((m) => Buffer.from(JSON.stringify(keyedRedaction(JSON.parse(Buffer.from(m).toString("utf8")) as KubeObject, key))));
}

/** The pair to diff for one manifest: rendered and live (undefined when absent in the member). */
export function diffPair(rendered: KubeObject, live: KubeObject | undefined, key: Buffer): { rendered: KubeObject; live: KubeObject | undefined } {
  const r = keyedRedaction(rendered, key);
  return { rendered: r, live: live === undefined ? undefined : (projectOnto(keyedRedaction(live, key), r) as KubeObject) };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
