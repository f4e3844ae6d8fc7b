// getJson's reads in this process instead of a kubectl process per poll: one keep-alive REST client
// per cluster, the resource resolved as kubectl resolves it (control-plane/kinds/resolve-kind.ts)
// against the cluster's discovery, which is read once per process and again on a miss, so a CRD
// installed later is found. What it cannot answer exactly as kubectl would, it leaves to kubectl.
import { readFile } from "node:fs/promises";
import { KubeConfig } from "@kubernetes/client-node";
import { apiVersionOf, resolveKind, type ServedResource } from "../../control-plane/kinds/resolve-kind.ts";
import { collectionPath, isKubeStatus, KubeRest, type ResourceInfo } from "../../shared/kube-rest.ts";
import type { GetRequest } from "./get-args.ts";
import { type ListPage, printedList, printedObject } from "./kubectl-json.ts";

/** The answer when kubectl must be asked: a kind discovery does not name (yet), a form not read here. */
export const ASK_KUBECTL = Symbol("ask kubectl");

/** A miss reads discovery again at most this often, so a poll for a CRD not installed yet stays cheap. */
const MISS_REREAD_MS = 1_000;
/** kubectl's --chunk-size. */
const PAGE_SIZE = "500";

interface ClusterClient {
  rest: KubeRest;
  /** The namespace kubectl uses when none is given: the context's, else "default". */
  namespace: string;
  served?: { at: number; list: Promise<ServedResource[]> };
}

/** By the kubeconfig's text: a cluster restarted on another port under the same path gets a new client. */
const clients = new Map<string, ClusterClient>();

/** What `kubectl get … -o json` prints (undefined for NotFound), or ASK_KUBECTL. */
export async function restGet(kubeconfigPath: string, req: GetRequest): Promise<Record<string, unknown> | undefined | typeof ASK_KUBECTL> {
  const client = await clientFor(kubeconfigPath);
  if (client === undefined) return ASK_KUBECTL;
  const resource = await resolve(client, req.resource);
  if (resource === undefined) return ASK_KUBECTL;
  const info: ResourceInfo = { apiVersion: apiVersionOf(resource), kind: resource.kind, plural: resource.plural, namespaced: resource.namespaced };
  const namespace = resource.namespaced && !req.allNamespaces ? (req.namespace ?? client.namespace) : undefined;
  const collection = collectionPath(info, namespace);
  try {
    if (req.name !== undefined) return printedObject(await get(client.rest, `${collection}/${encodeURIComponent(req.name)}`), req.showManagedFields);
    const pages: ListPage[] = [];
    let next: string | undefined;
    do {
      const page = await get<ListPage & { metadata?: { continue?: string } }>(client.rest, collection, {
        labelSelector: req.labelSelector,
        fieldSelector: req.fieldSelector,
        limit: PAGE_SIZE,
        continue: next,
      });
      pages.push(page);
      next = page.metadata?.continue || undefined;
    } while (next !== undefined);
    return printedList(pages, req.showManagedFields);
  } catch (err) {
    if (!isKubeStatus(err, 404)) throw err;
    // The object is not there (`deployments.apps "web" not found`), or the resource itself is not
    // served any more (a CRD deleted since discovery was read): that one kubectl words.
    if (req.name !== undefined && err.message.endsWith(`${JSON.stringify(req.name)} not found`)) return undefined;
    client.served = undefined;
    return ASK_KUBECTL;
  }
}

async function clientFor(kubeconfigPath: string): Promise<ClusterClient | undefined> {
  let text: string;
  try {
    text = await readFile(kubeconfigPath, "utf8");
  } catch {
    return undefined; // kubectl says what is wrong with it
  }
  let client = clients.get(text);
  if (client === undefined) {
    const kc = new KubeConfig();
    kc.loadFromString(text);
    client = { rest: new KubeRest(kc, { userAgent: "flotilla-e2e-get" }), namespace: kc.getContextObject(kc.getCurrentContext())?.namespace || "default" };
    clients.set(text, client);
  }
  return client;
}

/** The served resource a typed name means, reading discovery again once on a miss. */
async function resolve(client: ClusterClient, typed: string): Promise<ServedResource | undefined> {
  let r = resolveKind(typed, await served(client));
  if ("error" in r && client.served !== undefined && Date.now() - client.served.at >= MISS_REREAD_MS) {
    client.served = undefined;
    r = resolveKind(typed, await served(client));
  }
  return "error" in r ? undefined : r.resource;
}

function served(client: ClusterClient): Promise<ServedResource[]> {
  if (client.served === undefined) {
    const entry = { at: Date.now(), list: readServed(client.rest) };
    client.served = entry;
    // A failed read (the apiserver down) is not kept: the next poll reads again.
    entry.list.catch(() => {
      if (client.served === entry) client.served = undefined;
    });
  }
  return client.served.list;
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
  singularName?: string;
  shortNames?: string[];
}

/** Every resource the cluster serves, in its group's preferred version: the core group, then /apis. */
async function readServed(rest: KubeRest): Promise<ServedResource[]> {
  const [core, apis] = await Promise.all([get<{ resources: ApiResource[] }>(rest, "/api/v1"), get<{ groups: { name: string; preferredVersion?: { version: string } }[] }>(rest, "/apis")]);
  const groups = await Promise.all(
    apis.groups.map(async (g) => {
      const version = g.preferredVersion?.version;
      if (version === undefined) return [];
      // A group whose (aggregated) server is down is left out, as kubectl leaves it out.
      const list = await get<{ resources: ApiResource[] }>(rest, `/apis/${g.name}/${version}`).catch(() => ({ resources: [] }));
      return served1(g.name, version, list.resources);
    }),
  );
  return [...served1("", "v1", core.resources), ...groups.flat()];
}

function served1(group: string, version: string, resources: ApiResource[]): ServedResource[] {
  return resources
    .filter((r) => !r.name.includes("/"))
    .map((r) => ({ group, version, kind: r.kind, plural: r.name, ...(r.singularName ? { singular: r.singularName } : {}), shortNames: r.shortNames ?? [], namespaced: r.namespaced }));
}

/** A GET, sent again once when a kept-alive connection was closed by the apiserver as it was reused. */
async function get<T = Record<string, unknown>>(rest: KubeRest, path: string, query?: Record<string, string | undefined>): Promise<T> {
  try {
    return await rest.get<T>(path, query);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== "ECONNRESET" && code !== "EPIPE") throw err;
    return rest.get<T>(path, query);
  }
}
