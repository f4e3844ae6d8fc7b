// Which served resource a user's kind name means, as kubectl reads it: the Kind in any case, the
// plural, the singular or a short name, optionally followed by `.group` (deployments.apps).
// Pure: the caller passes what the control cluster serves (one preferred version per group).

/** One resource the apiserver serves. */
export interface ServedResource {
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular?: string;
  shortNames?: string[];
  namespaced: boolean;
}

export type KindResolution = { resource: ServedResource } | { error: string };

/** Resolves a kind name; ambiguity across groups prefers the core group, else it is an error. */
export function resolveKind(name: string, served: ServedResource[]): KindResolution {
  const wanted = name.trim().toLowerCase();
  if (wanted === "") return { error: "no kind given" };
  const matches = served.filter((r) => {
    for (const alias of aliases(r)) {
      if (wanted === alias) return true;
      if (wanted === `${alias}.${r.group}`) return true;
      if (wanted === `${alias}.${r.version}.${r.group}`) return true;
    }
    return false;
  });
  const groups = [...new Set(matches.map((r) => r.group))];
  if (matches.length === 0) return { error: `the control cluster serves no resource named ${JSON.stringify(name)}` };
  if (groups.length > 1 && !groups.includes("")) {
    const options = matches.map((r) => `${r.plural}.${r.group}`).sort().join(", ");
    return { error: `${JSON.stringify(name)} is ambiguous: ${options}; name the group (e.g. ${matches[0]?.plural}.${matches[0]?.group})` };
  }
  const pick = matches.find((r) => r.group === "") ?? (matches[0] as ServedResource);
  return { resource: pick };
}

/** The apiVersion of a served resource (`v1` for the core group). */
export function apiVersionOf(r: ServedResource): string {
  return r.group === "" ? r.version : `${r.group}/${r.version}`;
}

function aliases(r: ServedResource): string[] {
  return [r.kind.toLowerCase(), r.plural, r.singular || r.kind.toLowerCase(), ...(r.shortNames ?? [])].map((a) => a.toLowerCase());
}
