// `flotillactl migrate karmada` (issue 26), the I/O shell: reads Karmada's policies, customizations
// and the templates they select from Karmada's apiserver, converts them (migrate-convert.ts), and
// prints the plan; with --apply writes them into the control cluster by server-side apply (field
// manager flotillactl-migrate). It never deletes anything, in Karmada, the control cluster or a member.
import type { KubeObject, PropagationPolicy } from "../../shared/api/types.ts";
import { Discovery } from "../../shared/discovery.ts";
import type { FlagSpec, FlagValues } from "../../shared/flags.ts";
import { collectionPath, isKubeStatus, type KubeRest, objectPath, type ResourceInfo } from "../../shared/kube-rest.ts";
import { controlKubeconfig } from "./accept.ts";
import { clusterProblem, convertPolicy, convertTemplate, inWriteOrder, KARMADA_KINDS, type MigrationItem, type Schema, selects, webhookProblem } from "./migrate-convert.ts";
import { listAll, migrationClient, runMigration } from "./migration-run.ts";

export const karmadaKubeconfigFlag: FlagSpec = { name: "karmada-kubeconfig", type: "string", required: true, help: "kubeconfig of Karmada's apiserver (karmada-apiserver), read only" };
export const applyFlag: FlagSpec = { name: "apply", type: "bool", help: "write the converted objects into the control cluster (server-side apply, field manager flotillactl-migrate); without it only the plan is printed" };

const apiPath = (apiVersion: string, plural: string) => `${apiVersion.includes("/") ? "/apis" : "/api"}/${apiVersion}/${plural}`;

/** The spec schema of a Flotilla CRD in the control cluster: what the converted objects may hold. */
async function flotillaSpecSchema(control: KubeRest, plural: string, timeoutMs: number): Promise<Schema> {
  let crd: { spec: { versions: { name: string; schema?: { openAPIV3Schema?: Schema } }[] } };
  try {
    crd = await control.request("GET", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${plural}.flotilla.dev`, { timeoutMs });
  } catch (err) {
    if (isKubeStatus(err, 404)) throw new Error(`the control cluster has no ${plural}.flotilla.dev CRD: install Flotilla there first`, { cause: err });
    throw err;
  }
  const spec = crd.spec.versions.find((v) => v.name === "v1alpha1")?.schema?.openAPIV3Schema?.properties?.spec;
  if (spec === undefined) throw new Error(`the control cluster's ${plural}.flotilla.dev CRD has no v1alpha1 spec schema`);
  return spec;
}

/** The templates Karmada propagates: those its propagation policies select and those its bindings name. */
async function karmadaTemplates(karmada: KubeRest, policies: KubeObject[], timeoutMs: number): Promise<{ items: MigrationItem[]; policyProblems: Map<KubeObject, string[]> }> {
  const discovery = new Discovery(karmada);
  const found = new Map<string, { object: KubeObject; res: ResourceInfo }>();
  const keyOf = (o: KubeObject) => `${o.apiVersion}|${o.kind}|${o.metadata.namespace ?? ""}|${o.metadata.name ?? ""}`;
  const lists = new Map<string, { res: ResourceInfo; objects: KubeObject[] } | undefined>();
  const policyProblems = new Map<KubeObject, string[]>();
  for (const p of policies) {
    const namespace = p.kind === "PropagationPolicy" ? (p.metadata.namespace ?? "default") : undefined;
    for (const s of (p as PropagationPolicy).spec.resourceSelectors ?? []) {
      const gvk = `${s.apiVersion}|${s.kind}`;
      if (!lists.has(gvk)) {
        const res = await discovery.resourceFor(s.apiVersion, s.kind);
        lists.set(gvk, res === undefined ? undefined : { res, objects: await listAll(karmada, collectionPath(res), s.apiVersion, s.kind, timeoutMs) });
      }
      const list = lists.get(gvk);
      if (list === undefined) {
        policyProblems.set(p, [...(policyProblems.get(p) ?? []), `selects ${s.kind} in ${s.apiVersion}, which Karmada's apiserver does not serve: no template copied for it`]);
        continue;
      }
      for (const o of list.objects) if (selects(s, o, namespace)) found.set(keyOf(o), { object: o, res: list.res });
    }
  }
  // Dependencies Karmada propagated (propagateDeps) have bindings of their own, not a selector.
  for (const plural of ["resourcebindings", "clusterresourcebindings"]) {
    for (const b of await listAll(karmada, `/apis/work.karmada.io/v1alpha2/${plural}`, "work.karmada.io/v1alpha2", "Binding", timeoutMs)) {
      const r = (b.spec as { resource?: { apiVersion: string; kind: string; namespace?: string; name: string } } | undefined)?.resource;
      if (r === undefined || found.has(`${r.apiVersion}|${r.kind}|${r.namespace ?? ""}|${r.name}`)) continue;
      const res = await discovery.resourceFor(r.apiVersion, r.kind);
      if (res === undefined) continue;
      try {
        const o = await karmada.request<KubeObject>("GET", objectPath(res, res.namespaced ? r.namespace : undefined, r.name), { timeoutMs });
        found.set(keyOf(o), { object: o, res });
      } catch (err) {
        if (!isKubeStatus(err, 404)) throw err;
      }
    }
  }
  const items = [...found.values()].map(({ object, res }) => convertTemplate(object, res.namespaced));
  return { items, policyProblems };
}

/** Reads Karmada and converts: every item of the migration, namespaces first, in the order they are written. */
async function migrationItems(karmada: KubeRest, control: KubeRest, timeoutMs: number): Promise<MigrationItem[]> {
  const items: MigrationItem[] = [];
  const policies: KubeObject[] = [];
  const converted = new Map<KubeObject, MigrationItem>();
  for (const k of KARMADA_KINDS) {
    const objects = await listAll(karmada, apiPath(k.apiVersion, k.plural), k.apiVersion, k.kind, timeoutMs);
    if (objects.length === 0) continue;
    const schema = await flotillaSpecSchema(control, k.plural, timeoutMs);
    for (const o of objects) {
      const item = convertPolicy(o, schema, k.namespaced);
      converted.set(o, item);
      items.push(item);
      if (k.kind.endsWith("PropagationPolicy")) policies.push(o);
    }
  }
  const templates = await karmadaTemplates(karmada, policies, timeoutMs);
  for (const [p, problems] of templates.policyProblems) converted.get(p)?.problems.push(...problems);
  items.push(...templates.items);
  for (const w of await listAll(karmada, "/apis/config.karmada.io/v1alpha1/resourceinterpreterwebhookconfigurations", "config.karmada.io/v1alpha1", "ResourceInterpreterWebhookConfiguration", timeoutMs)) items.push(webhookProblem(w));
  for (const c of await listAll(karmada, "/apis/cluster.karmada.io/v1alpha1/clusters", "cluster.karmada.io/v1alpha1", "Cluster", timeoutMs)) {
    const problem = clusterProblem(c);
    if (problem !== undefined) items.push(problem);
  }
  return inWriteOrder(items);
}

/**
 * The command: the plan (or, with --apply, what was written) as a table or JSON/YAML; the summary
 * goes to `warn`. A call that fails, or any write that fails, ends in an error (exit 1) after the
 * table is printed; objects that could not be (fully) converted are listed and do not change the exit code.
 */
export async function runMigrateKarmada(flags: FlagValues, format: "table" | "json" | "yaml", timeoutMs: number, warn: (s: string) => void): Promise<string> {
  const karmada = migrationClient(String(flags["karmada-kubeconfig"]), "--karmada-kubeconfig with Karmada's apiserver's");
  let control: KubeRest | undefined;
  try {
    control = migrationClient(controlKubeconfig(flags), "--kubeconfig with the control cluster's");
    const items = await migrationItems(karmada, control, timeoutMs);
    return await runMigration(control, items, { apply: flags.apply === true, format, timeoutMs, warn });
  } finally {
    karmada.close();
    control?.close();
  }
}
