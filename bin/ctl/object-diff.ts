// `flotillactl diff`'s output: a unified diff per object of the member's live YAML (cut down to
// the fields Flotilla sets) against the rendered YAML; objects that agree print nothing. Pure.
import { createTwoFilesPatch } from "diff";
import { stringify } from "yaml";

export interface ObjectPairView {
  rendered: { apiVersion: string; kind: string; metadata?: { namespace?: string; name?: string } };
  /** Undefined when the member has no such object. */
  live: unknown;
}

/** The unified diff of every pair that differs; "" when all agree. */
export function unifiedDiff(pairs: ObjectPairView[]): string {
  return pairs
    .map((p) => {
      const id = `${p.rendered.kind}/${p.rendered.metadata?.namespace ? `${p.rendered.metadata.namespace}/` : ""}${p.rendered.metadata?.name ?? ""}`;
      const before = p.live === undefined ? "" : stringify(p.live);
      const after = stringify(p.rendered);
      if (before === after) return "";
      return createTwoFilesPatch(p.live === undefined ? "/dev/null" : `live/${id}`, `rendered/${id}`, before, after, "", "", { context: 3 }).replace(/^=+\n/, "");
    })
    .filter((d) => d !== "")
    .join("");
}
