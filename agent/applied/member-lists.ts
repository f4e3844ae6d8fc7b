// Lists the agent reads from its member (I/O). What deleting a Namespace or a CRD would take along:
// every object in the namespace, of every namespaced kind the member serves (as the namespace
// controller finds them), or every custom resource of the CRD in all namespaces
// (unmanaged-contents.ts decides). And the objects that carry a Work's label (orphans.ts decides).
import { type KubeObject, LABELS } from "../../shared/api/types.ts";
import type { Discovery } from "../../shared/discovery.ts";
import { collectionPath, type KubeRest } from "../../shared/kube-rest.ts";

interface ResourceList {
  groupVersion: string;
  resources: { name: string; kind: string; namespaced: boolean; verbs?: string[] }[];
}

interface ObjectList {
  items?: KubeObject[];
  metadata?: { continue?: string };
}

/** Every item of a list path, page by page, with apiVersion and kind set (built-in lists leave them out). */
async function listAll(rest: KubeRest, path: string, apiVersion: string, kind: string): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  let token: string | undefined;
  do {
    const page = await rest.get<ObjectList>(path, { limit: "500", continue: token });
    for (const item of page.items ?? []) out.push({ ...item, apiVersion, kind });
    token = page.metadata?.continue || undefined;
  } while (token !== undefined);
  return out;
}

/** The group-versions the member serves, one per group (its preferred version), core first. */
async function groupVersions(rest: KubeRest): Promise<string[]> {
  const groups = await rest.get<{ groups?: { preferredVersion?: { groupVersion: string } }[] }>("/apis");
  return ["v1", ...(groups.groups ?? []).map((g) => g.preferredVersion?.groupVersion).filter((gv): gv is string => gv !== undefined)];
}

/** Every object in a member namespace. Any list that fails fails the whole (the caller keeps the namespace). */
export async function namespaceContents(rest: KubeRest, namespace: string): Promise<KubeObject[]> {
  const perVersion = await Promise.all(
    (await groupVersions(rest)).map(async (gv) => {
      const list = await rest.get<ResourceList>(gv === "v1" ? "/api/v1" : `/apis/${gv}`);
      const listable = list.resources.filter((r) => r.namespaced && !r.name.includes("/") && (r.verbs ?? []).includes("list"));
      const prefix = gv === "v1" ? "/api/v1" : `/apis/${gv}`;
      const lists = await Promise.all(listable.map((r) => listAll(rest, `${prefix}/namespaces/${encodeURIComponent(namespace)}/${r.name}`, gv, r.kind)));
      return lists.flat();
    }),
  );
  return perVersion.flat();
}

/** The live CustomResourceDefinition's fields this needs. */
interface CrdSpec {
  spec?: { group?: string; names?: { plural?: string; kind?: string }; versions?: { name: string; served?: boolean; storage?: boolean }[] };
}

/** Every custom resource of a CRD, in all namespaces (one served version lists them all). */
export async function crdContents(rest: KubeRest, crd: KubeObject): Promise<KubeObject[]> {
  const spec = (crd as CrdSpec).spec;
  const versions = (spec?.versions ?? []).filter((v) => v.served !== false);
  const version = versions.find((v) => v.storage === true) ?? versions[0];
  // Without a served version its objects cannot be counted: the caller keeps the CRD (DESIGN §11).
  if (spec?.group === undefined || spec.names?.plural === undefined || version === undefined) throw new Error(`cannot list the objects of CustomResourceDefinition ${crd.metadata.name ?? ""}: it serves no version`);
  const apiVersion = `${spec.group}/${version.name}`;
  return listAll(rest, `/apis/${apiVersion}/${spec.names.plural}`, apiVersion, spec.names.kind ?? "");
}

/** The member's objects of these kinds that carry a Work's label (kinds the member does not serve are skipped). */
export async function labelledObjects(rest: KubeRest, discovery: Discovery, kinds: Iterable<{ apiVersion: string; kind: string }>): Promise<KubeObject[]> {
  const labelled: KubeObject[] = [];
  for (const k of kinds) {
    const res = await discovery.resourceFor(k.apiVersion, k.kind);
    if (res === undefined) continue;
    const list = await rest.get<{ items?: KubeObject[] }>(collectionPath(res), { labelSelector: LABELS.work });
    for (const item of list.items ?? []) labelled.push({ ...item, apiVersion: res.apiVersion, kind: res.kind });
  }
  return labelled;
}
