// Which resource a name means in a member, as kubectl reads it (control-plane/kinds/resolve-kind.ts,
// the same rules the Admin API resolves templates by), against what that member serves: its
// aggregated discovery (/api and /apis, apidiscovery.k8s.io v2 or v2beta1), read through the
// member API. The parsing and the paths are pure.
import { apiVersionOf, resolveKind, type ServedResource } from "../../control-plane/kinds/resolve-kind.ts";
import { collectionPath, objectPath, type ResourceInfo } from "../../shared/kube-rest.ts";
import type { MemberApi } from "./member-api.ts";

/** Aggregated discovery, or the older documents from a server that has none (told apart by kind). */
export const DISCOVERY_ACCEPT = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

interface DiscoveryList {
  kind?: string;
  items?: {
    metadata?: { name?: string };
    versions?: { version: string; resources?: { resource: string; responseKind?: { kind?: string }; scope?: string; singularResource?: string; shortNames?: string[] }[] }[];
  }[];
}

/** The resources of aggregated discovery documents, the preferred (first) version of each group; or why there are none. */
export function servedResources(docs: readonly unknown[]): ServedResource[] | { error: string } {
  const out: ServedResource[] = [];
  for (const doc of docs as DiscoveryList[]) {
    if (doc?.kind !== "APIGroupDiscoveryList") return { error: "its apiserver serves no aggregated discovery (apidiscovery.k8s.io, Kubernetes 1.26 and later)" };
    for (const group of doc.items ?? []) {
      const preferred = group.versions?.[0];
      if (preferred === undefined) continue;
      for (const r of preferred.resources ?? []) {
        const kind = r.responseKind?.kind;
        if (kind === undefined || kind === "" || r.resource.includes("/")) continue;
        out.push({ group: group.metadata?.name ?? "", version: preferred.version, kind, plural: r.resource, ...(r.singularResource ? { singular: r.singularResource } : {}), shortNames: r.shortNames ?? [], namespaced: r.scope === "Namespaced" });
      }
    }
  }
  return out;
}

/** A name resolved among a member's resources, or why it is none there. */
export function resolveIn(name: string, served: ServedResource[]): ResourceInfo | { error: string } {
  const r = resolveKind(name, served);
  // The resolver speaks of the control cluster, where the Admin API resolves names; the caller names the member.
  if ("error" in r) return { error: r.error.replace("the control cluster", "the member") };
  return { apiVersion: apiVersionOf(r.resource), kind: r.resource.kind, plural: r.resource.plural, namespaced: r.resource.namespaced };
}

/** The path to read: one object (`name`), or the list in a namespace (undefined: every one), with the query. */
export function readPath(resource: ResourceInfo, namespace: string | undefined, name: string | undefined, query: Record<string, string | undefined> = {}): string {
  const ns = resource.namespaced ? namespace : undefined;
  const path = name === undefined ? collectionPath(resource, ns) : objectPath(resource, ns, name);
  const params = Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== "");
  return params.length === 0 ? path : `${path}?${new URLSearchParams(params).toString()}`;
}

/** Resolves names in members, reading each member's discovery once. */
export class MemberResources {
  private readonly api: MemberApi;
  private readonly served = new Map<string, Promise<ServedResource[]>>();

  constructor(api: MemberApi) {
    this.api = api;
  }

  async resolve(cluster: string, name: string): Promise<ResourceInfo> {
    const r = resolveIn(name, await this.of(cluster));
    if ("error" in r) throw new Error(r.error);
    return r;
  }

  private of(cluster: string): Promise<ServedResource[]> {
    let p = this.served.get(cluster);
    if (p === undefined) {
      p = Promise.all(["/api", "/apis"].map((path) => this.api.get<unknown>(cluster, path, DISCOVERY_ACCEPT))).then((docs) => {
        const served = servedResources(docs);
        if ("error" in served) throw new Error(served.error);
        return served;
      });
      this.served.set(cluster, p);
    }
    return p;
  }
}
