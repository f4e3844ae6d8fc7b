// `flotillactl diff`'s output: a unified diff per object of the member's live YAML (cut down to
// the fields Flotilla sets) against the rendered YAML (and `plan --diff`'s, of a Work now against
// after); objects that agree print nothing. Pure.
import { createTwoFilesPatch } from "diff";
import { stringify } from "yaml";

export interface ObjectPairView {
  rendered: { apiVersion: string; kind: string; metadata?: { namespace?: string; name?: string } };
  /** Undefined when the member has no such object. */
  live: unknown;
}

/** The unified diff of every pair that differs; "" when all agree. `names` label the two sides. */
export function unifiedDiff(pairs: ObjectPairView[], names: { before: string; after: string } = { before: "live", after: "rendered" }): string {
  return pairs
    .map((p) => {
      const id = `${p.rendered.kind}/${p.rendered.metadata?.namespace ? `${p.rendered.metadata.namespace}/` : ""}${p.rendered.metadata?.name ?? ""}`;
      const before = p.live === undefined ? "" : stringify(p.live);
      const after = stringify(p.rendered);
      if (before === after) return "";
      return createTwoFilesPatch(p.live === undefined ? "/dev/null" : `${names.before}/${id}`, `${names.after}/${id}`, before, after, "", "", { context: 3 }).replace(/^=+\n/, "");
    })
    .filter((d) => d !== "")
    .join("");
}
