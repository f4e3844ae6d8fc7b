import type { KubeRest, ResourceInfo } from "./kube-rest.ts";

interface APIResourceList {
  groupVersion: string;
  resources: { name: string; kind: string; namespaced: boolean; verbs?: string[] }[];
}

/**
 * Maps apiVersion + kind to the resource's plural and scope, from the apiserver's discovery
 * documents, cached per group-version. A miss re-reads the group-version (a CRD may have been
 * added since), at most once per `refreshMs`.
 */
export class Discovery {
  private readonly rest: KubeRest;
  private readonly refreshMs: number;
  private readonly cache = new Map<string, { at: number; byKind: Map<string, ResourceInfo> }>();

  constructor(rest: KubeRest, opts: { refreshMs?: number } = {}) {
    this.rest = rest;
    this.refreshMs = opts.refreshMs ?? 2000;
  }

  /** The resource of a kind, or undefined when the apiserver does not serve it. */
  async resourceFor(apiVersion: string, kind: string): Promise<ResourceInfo | undefined> {
    let entry = this.cache.get(apiVersion);
    if (entry?.byKind.has(kind)) return entry.byKind.get(kind);
    if (entry !== undefined && Date.now() - entry.at < this.refreshMs) return undefined;
    entry = { at: Date.now(), byKind: await this.read(apiVersion) };
    this.cache.set(apiVersion, entry);
    return entry.byKind.get(kind);
  }

  private async read(apiVersion: string): Promise<Map<string, ResourceInfo>> {
    const path = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const byKind = new Map<string, ResourceInfo>();
    let list: APIResourceList;
    try {
      list = await this.rest.get<APIResourceList>(path);
    } catch (err) {
      if ((err as { status?: number }).status === 404) return byKind;
      throw err;
    }
    for (const r of list.resources) {
      if (r.name.includes("/")) continue; // subresources
      byKind.set(r.kind, { apiVersion, kind: r.kind, plural: r.name, namespaced: r.namespaced });
    }
    return byKind;
  }
}
