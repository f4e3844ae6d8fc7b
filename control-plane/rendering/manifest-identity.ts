// The fields that say which object a rendered manifest is in its member cluster. An override that
// changed one would not change the object: the agent would prune the old one and create another
// (a rename turned into a delete), so overriders.ts refuses it after every overrider. Pure.
import type { KubeObject } from "../../shared/api/types.ts";

/** apiVersion, kind, metadata.name and metadata.namespace of a manifest, as found (absent: undefined). */
export type ManifestIdentity = readonly [field: string, value: unknown][];

export function manifestIdentity(object: KubeObject): ManifestIdentity {
  const metadata: unknown = object.metadata;
  const meta = typeof metadata === "object" && metadata !== null && !Array.isArray(metadata) ? (metadata as Record<string, unknown>) : {};
  return [
    ["apiVersion", object.apiVersion],
    ["kind", object.kind],
    ["metadata.name", meta.name],
    ["metadata.namespace", meta.namespace],
  ];
}

/** Undefined when the object still has this identity, else what changed ("may not change kind ("Deployment" → "StatefulSet")"). */
export function identityChange(before: ManifestIdentity, object: KubeObject): string | undefined {
  const now = manifestIdentity(object);
  for (const [i, [field, was]] of before.entries()) {
    const is = now[i]?.[1];
    if (was !== is) return `may not change ${field} (${shown(was)} → ${shown(is)}): an override cannot rename, move or retype the object`;
  }
  return undefined;
}

function shown(v: unknown): string {
  if (v === undefined) return "absent";
  const text = JSON.stringify(v) ?? String(v);
  // A policy's value can be a whole object; a status message needs only its start.
  return text.length > 70 ? `${text.slice(0, 67)}...` : text;
}
