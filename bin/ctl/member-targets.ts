// What `logs` and `events` read: the members a template runs in (or those named), and in each the
// workload and its pods, through the member API.
import { status as GrpcStatus } from "@grpc/grpc-js";
import { FlagError } from "../../shared/flags.ts";
import type { ResourceInfo } from "../../shared/kube-rest.ts";
import { type CommandContext, templateRef } from "./command.ts";
import { call } from "./connection.ts";
import { kindAndName } from "./format.ts";
import { MemberApi } from "./member-api.ts";
import { MemberResources, readPath } from "./member-discovery.ts";
import { selectClusters } from "./member-endpoints.ts";
import { listItems } from "./member-table.ts";
import { podsOf } from "./member-workload.ts";

export const PODS: ResourceInfo = { apiVersion: "v1", kind: "Pod", plural: "pods", namespaced: true };

/** An object as the member API returns it; the fields these commands read. */
export interface MemberObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; uid?: string; labels?: Record<string, string>; ownerReferences?: { uid: string; kind: string; name: string; apiVersion: string; controller?: boolean }[] };
  spec?: Record<string, unknown>;
}

/** The members to read and how: the workload `<kind>/<name>` in its namespace. */
export interface WorkloadTargets {
  api: MemberApi;
  resources: MemberResources;
  clusters: string[];
  kind: string;
  name: string;
  namespace: string;
}

/** The members named by --cluster or --clusters, else those the template `<kind>/<name>` is propagated to (GetPropagation). */
export async function workloadTargets({ client, credentials, args, flags, timeoutMs, program }: CommandContext): Promise<WorkloadTargets> {
  const kn = kindAndName(args[0]);
  if ("error" in kn) throw new FlagError(kn.error);
  const one = String(flags.cluster ?? "");
  const many = String(flags.clusters ?? "");
  if (one !== "" && many !== "") throw new FlagError("give --cluster or --clusters, not both");
  const list = await call(client, client.listClusters, {}, timeoutMs);
  let named = one || many;
  if (named === "") {
    const ref = templateRef(args[0], flags);
    const propagation = await call(client, client.getPropagation, { template: ref, limit: 0, continueToken: "" }, timeoutMs).catch((err: unknown) => {
      if ((err as { code?: number }).code !== GrpcStatus.NOT_FOUND) throw err;
      throw new Error(`${(err as { details?: string }).details ?? "not found"} in the control cluster: name the members with --cluster or --clusters`, { cause: err });
    });
    named = propagation.clusters.map((c) => c.cluster).join(",");
    if (named === "") throw new Error(`${args[0]} is in no member cluster yet (${program} explain ${args[0]} says why)`);
  }
  const selected = selectClusters(list, named);
  if ("error" in selected) throw new Error(selected.error);
  const api = new MemberApi(list.memberApiUrl, credentials, timeoutMs);
  return { api, resources: new MemberResources(api), clusters: selected.clusters, kind: kn.kind, name: kn.name, namespace: String(flags.namespace ?? "default") };
}

/** The workload's object in a member and its pods (a Pod is its own), with the selector that found them. */
export async function readWorkload(t: WorkloadTargets, cluster: string): Promise<{ object: MemberObject; pods: MemberObject[]; selector: string | undefined }> {
  const info = await t.resources.resolve(cluster, t.kind);
  const object = await t.api.get<MemberObject>(cluster, readPath(info, t.namespace, t.name));
  const of = podsOf(object);
  if ("error" in of) throw new Error(of.error);
  if ("pod" in of) return { object, pods: [object], selector: undefined };
  const list = await t.api.get<{ apiVersion?: string; kind?: string; items?: Record<string, unknown>[] }>(cluster, readPath(PODS, t.namespace, undefined, { labelSelector: of.selector }));
  return { object, pods: listItems(list) as MemberObject[], selector: of.selector };
}
