// `flotillactl get <what>` takes Karmada's (karmadactl's and kubectl's) names for the kinds it lists:
// short names, plurals and singulars, so `flotillactl get pp` reads as `karmadactl get pp` does.
import type { PropagationPolicy } from "../../shared/api/types.ts";

/** What each name lists: one of flotillactl's `get` commands. */
export const GET_NAMES: Readonly<Record<string, string>> = {
  pp: "propagationpolicies",
  propagationpolicy: "propagationpolicies",
  cpp: "clusterpropagationpolicies",
  clusterpropagationpolicy: "clusterpropagationpolicies",
  op: "overridepolicies",
  overridepolicy: "overridepolicies",
  cop: "clusteroverridepolicies",
  clusteroverridepolicy: "clusteroverridepolicies",
  rb: "bindings",
  resourcebinding: "bindings",
  resourcebindings: "bindings",
  binding: "bindings",
  crb: "bindings",
  clusterresourcebinding: "bindings",
  clusterresourcebindings: "bindings",
  cluster: "clusters",
  work: "works",
};

/** argv with a `get` name replaced by the command it means; anything else as it was. */
export function resolveGetName(argv: readonly string[]): string[] {
  const [verb, what, ...rest] = argv;
  if (verb !== "get" || what === undefined) return [...argv];
  const name = GET_NAMES[what.toLowerCase()] ?? what;
  // ClusterResourceBindings are the cluster-scoped bindings: every namespace's list holds them.
  const scoped = ["crb", "clusterresourcebinding", "clusterresourcebindings"].includes(what.toLowerCase()) && !rest.includes("-A") && !rest.includes("--all-namespaces") ? ["--cluster-scoped"] : [];
  return [verb, name, ...scoped, ...rest];
}

/** A policy's selectors as one cell: `Kind/name`, `Kind` (every one), `Kind{labels}`. */
export function selectorsCell(p: PropagationPolicy): string {
  const cell = (s: PropagationPolicy["spec"]["resourceSelectors"][number]) => {
    const ns = s.namespace ? `${s.namespace}/` : "";
    if (s.name) return `${s.kind}/${ns}${s.name}`;
    return s.labelSelector ? `${s.kind}{${Object.entries(s.labelSelector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`).join(",")}${(s.labelSelector.matchExpressions ?? []).length > 0 ? "…" : ""}}` : `${s.kind}${ns === "" ? "" : ` in ${s.namespace}`}`;
  };
  return (p.spec.resourceSelectors ?? []).map(cell).join(",") || "-";
}
