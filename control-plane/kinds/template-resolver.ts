// Which control-cluster object an Admin call names: the kind resolved as kubectl reads it
// (resolve-kind.ts) against what the control cluster serves, read once per 30 s, and the
// namespace defaulted for a namespaced kind.
import { status as GrpcStatus } from "@grpc/grpc-js";
import type { TemplateRef } from "../../shared/gen/flotilla/v1alpha1/admin.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import { apiVersionOf, resolveKind, type ServedResource } from "./resolve-kind.ts";
import { RpcError } from "../rpc.ts";

const SERVED_TTL_MS = 30_000;

/** A resolved template reference and its REST path. */
export interface ResolvedRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  path: string;
}

/** "ns/name", or "name" for a cluster-scoped object: how messages name it. */
export function refName(ref: { namespace?: string; name: string }): string {
  return ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
}

export class TemplateResolver {
  private readonly rest: KubeRest;
  private served: { at: number; list: ServedResource[] } | undefined;

  constructor(rest: KubeRest) {
    this.rest = rest;
  }

  /** The template a reference names, with its kind resolved and its namespace defaulted. */
  async resolve(t: TemplateRef | undefined): Promise<ResolvedRef> {
    if (t === undefined || t.name === "" || t.kind === "") throw new RpcError(GrpcStatus.INVALID_ARGUMENT, "a template needs a kind and a name");
    let resource: ServedResource | undefined;
    if (t.apiVersion === "") {
      const r = resolveKind(t.kind, await this.servedResources());
      if ("error" in r) throw new RpcError(GrpcStatus.INVALID_ARGUMENT, r.error);
      resource = r.resource;
    } else {
      resource = (await this.servedResources()).find((r) => apiVersionOf(r) === t.apiVersion && r.kind === t.kind);
      if (resource === undefined) throw new RpcError(GrpcStatus.INVALID_ARGUMENT, `the control cluster does not serve ${t.kind} in ${t.apiVersion}`);
    }
    const apiVersion = apiVersionOf(resource);
    const namespace = resource.namespaced ? t.namespace || "default" : undefined;
    const base = resource.group === "" ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
    const path = `${base}${namespace ? `/namespaces/${encodeURIComponent(namespace)}` : ""}/${resource.plural}/${encodeURIComponent(t.name)}`;
    return { apiVersion, kind: resource.kind, ...(namespace ? { namespace } : {}), name: t.name, path };
  }

  /** What the control cluster serves (preferred version per group), cached briefly. */
  private async servedResources(): Promise<ServedResource[]> {
    if (this.served !== undefined && Date.now() - this.served.at < SERVED_TTL_MS) return this.served.list;
    const list: ServedResource[] = [];
    const add = (group: string, version: string, resources: ApiResource[]) => {
      for (const r of resources) {
        if (r.name.includes("/")) continue;
        list.push({ group, version, kind: r.kind, plural: r.name, ...(r.singularName ? { singular: r.singularName } : {}), shortNames: r.shortNames ?? [], namespaced: r.namespaced });
      }
    };
    const core = await this.rest.get<{ resources: ApiResource[] }>("/api/v1");
    add("", "v1", core.resources);
    const groups = await this.rest.get<{ groups: { name: string; preferredVersion?: { version: string } }[] }>("/apis");
    await Promise.all(
      groups.groups.map(async (g) => {
        const version = g.preferredVersion?.version;
        if (version === undefined) return;
        const r = await this.rest.get<{ resources: ApiResource[] }>(`/apis/${g.name}/${version}`).catch(() => ({ resources: [] }));
        add(g.name, version, r.resources);
      }),
    );
    this.served = { at: Date.now(), list };
    return list;
  }
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
  singularName?: string;
  shortNames?: string[];
}

