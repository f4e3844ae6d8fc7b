// `flotillactl migrate kubefed` (issue 39), the I/O shell: reads KubeFed's objects from files
// (-f, a directory read recursively) or from a live KubeFed host cluster (--kubefed-kubeconfig),
// converts them (kubefed-convert.ts), and prints the plan; with --apply writes them into the
// control cluster by server-side apply, namespaces first and policies last (migration-run.ts). It
// never deletes anything, in KubeFed's host, the control cluster or a member.
import type { KubeObject } from "../../shared/api/types.ts";
import { FlagError, type FlagSpec, type FlagValues } from "../../shared/flags.ts";
import { isKubeStatus, type KubeRest } from "../../shared/kube-rest.ts";
import { controlKubeconfig } from "./accept.ts";
import { convertKubefed, KUBEFED_SCHEDULING, KUBEFED_TYPES } from "./kubefed-convert.ts";
import { inWriteOrder, type MigrationItem } from "./migrate-convert.ts";
import { listAll, migrationClient, runMigration } from "./migration-run.ts";
import { readSourcedObjects } from "./object-files.ts";

export const kubefedKubeconfigFlag: FlagSpec = { name: "kubefed-kubeconfig", type: "string", help: "kubeconfig of KubeFed's host cluster, read only (instead of -f)" };
export const kubefedFileFlag: FlagSpec = { name: "filename", short: "f", type: "string", help: "KubeFed's YAML or JSON: a file, or a directory read recursively (instead of --kubefed-kubeconfig)" };

/** KubeFed's own groups besides the Federated types': the scheduling preferences and the DNS records. */
const KUBEFED_GROUP_VERSIONS = [KUBEFED_SCHEDULING, "multiclusterdns.kubefed.io/v1alpha1"];
const TYPE_CONFIGS = "/apis/core.kubefed.io/v1beta1/federatedtypeconfigs";

/** The collections of one group version, each with its kind; none when the host does not serve it. */
async function collections(host: KubeRest, gv: string, timeoutMs: number): Promise<{ name: string; kind: string }[]> {
  try {
    const list = await host.request<{ resources?: { name: string; kind: string }[] }>("GET", `/apis/${gv}`, { timeoutMs });
    return (list.resources ?? []).filter((r) => !r.name.includes("/"));
  } catch (err) {
    if (isKubeStatus(err, 404)) return [];
    throw err;
  }
}

/**
 * Every object of KubeFed's in the host: its FederatedTypeConfigs, the Federated types they name
 * (wherever `kubefedctl enable --federated-group` put them; types.kubefed.io by default), the
 * scheduling preferences and DNS records. A host that serves no FederatedTypeConfig is not KubeFed's.
 */
async function hostObjects(host: KubeRest, timeoutMs: number): Promise<KubeObject[]> {
  if (!(await collections(host, "core.kubefed.io/v1beta1", timeoutMs)).some((r) => r.name === "federatedtypeconfigs")) {
    throw new Error("the cluster --kubefed-kubeconfig names serves no FederatedTypeConfig (core.kubefed.io/v1beta1): it is not KubeFed's host");
  }
  const configs = await listAll(host, TYPE_CONFIGS, "core.kubefed.io/v1beta1", "FederatedTypeConfig", timeoutMs);
  const out = [...configs];
  const federatedGvs = new Set([KUBEFED_TYPES]);
  for (const c of configs) {
    const t = (c.spec as { federatedType?: { group?: string; version?: string } } | undefined)?.federatedType;
    if (t?.group && t.version) federatedGvs.add(`${t.group}/${t.version}`);
  }
  for (const gv of [...federatedGvs, ...KUBEFED_GROUP_VERSIONS]) {
    for (const r of await collections(host, gv, timeoutMs)) out.push(...(await listAll(host, `/apis/${gv}/${r.name}`, gv, r.kind, timeoutMs)));
  }
  return out;
}

/** The objects in the files; a document that is not a Kubernetes object is listed as such (a kustomization.yaml in the tree, say). */
async function fileObjects(path: string): Promise<{ objects: KubeObject[]; skipped: MigrationItem[] }> {
  const objects: KubeObject[] = [];
  const skipped: MigrationItem[] = [];
  for (const { source, value } of await readSourcedObjects(path, { recursive: true })) {
    const o = value as Partial<KubeObject> | null;
    if (typeof o !== "object" || o === null || typeof o.apiVersion !== "string" || typeof o.kind !== "string" || typeof o.metadata?.name !== "string") {
      skipped.push({ source: { apiVersion: "", kind: "-", name: source }, problems: ["not carried over: not a Kubernetes object (no apiVersion, kind and metadata.name)"] });
      continue;
    }
    objects.push(o as KubeObject);
  }
  return { objects, skipped };
}

/**
 * The command: the plan (or, with --apply, what was written); exit 1 when a write fails, exit 2
 * (a usage error) without exactly one source. Problems are listed and do not change the exit code.
 */
export async function runMigrateKubefed(flags: FlagValues, format: "table" | "json" | "yaml", timeoutMs: number, warn: (s: string) => void): Promise<string> {
  const file = flags.filename;
  const kubeconfig = flags["kubefed-kubeconfig"];
  if ((typeof file === "string") === (typeof kubeconfig === "string")) throw new FlagError("give exactly one of -f FILE|DIR and --kubefed-kubeconfig FILE");
  let host: KubeRest | undefined;
  let control: KubeRest | undefined;
  try {
    let objects: KubeObject[];
    let skipped: MigrationItem[] = [];
    if (typeof file === "string") ({ objects, skipped } = await fileObjects(file));
    else {
      host = migrationClient(String(kubeconfig), "--kubefed-kubeconfig with KubeFed's host cluster's");
      objects = await hostObjects(host, timeoutMs);
    }
    control = migrationClient(controlKubeconfig(flags), "--kubeconfig with the control cluster's");
    return await runMigration(control, [...inWriteOrder(convertKubefed(objects)), ...skipped], { apply: flags.apply === true, format, timeoutMs, warn });
  } finally {
    host?.close();
    control?.close();
  }
}
