// The name of one dashboard view, from a request's query (issue 24): overview, templates,
// clusters, features, or topology of one template. One canonical string per view, so that every
// browser on the same view shares one computation (live-views.ts). Pure.

export const VIEWS = ["overview", "templates", "clusters", "features", "topology"] as const;
export type ViewName = (typeof VIEWS)[number];

const TEMPLATE_FIELDS = ["apiVersion", "kind", "namespace", "name"] as const;

export type ParsedView = { name: Exclude<ViewName, "topology"> } | { name: "topology"; ref: { apiVersion: string; kind: string; namespace: string; name: string } };

/** The view's key: `overview`, or `topology?apiVersion=…&kind=…&namespace=…&name=…` in that order. */
export function viewKey(q: URLSearchParams): string {
  const name = q.get("view") ?? "";
  if (name !== "topology") return name;
  const p = new URLSearchParams();
  for (const f of TEMPLATE_FIELDS) p.set(f, q.get(f) ?? "");
  return `topology?${p.toString()}`;
}

/** The view a key names, or an error message. */
export function parseViewKey(key: string): ParsedView | { error: string } {
  const [name = "", query = ""] = key.split("?", 2);
  if (!(VIEWS as readonly string[]).includes(name)) return { error: `no such view ${JSON.stringify(name)}: one of ${VIEWS.join(", ")}` };
  if (name !== "topology") return { name: name as Exclude<ViewName, "topology"> };
  const q = new URLSearchParams(query);
  const ref = { apiVersion: q.get("apiVersion") ?? "", kind: q.get("kind") ?? "", namespace: q.get("namespace") ?? "", name: q.get("name") ?? "" };
  if (ref.apiVersion === "" || ref.kind === "" || ref.name === "") return { error: "a topology needs the template's apiVersion, kind and name (and namespace when it has one)" };
  return { name: "topology", ref };
}
