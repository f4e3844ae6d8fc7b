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
import { inWriteOrder } from "./migrate-convert.ts";
import { listAll, migrationClient, runMigration } from "./migration-run.ts";
import { readSourcedObjects } from "./object-files.ts";

export const kubefedKubeconfigFlag: FlagSpec = { name: "kubefed-kubeconfig", type: "string", help: "kubeconfig of KubeFed's host cluster, read only (instead of -f)" };
export const kubefedFileFlag: FlagSpec = { name: "filename", short: "f", type: "string", help: "KubeFed's YAML or JSON: a file, or a directory read recursively (instead of --kubefed-kubeconfig)" };

/** The API groups a KubeFed host serves KubeFed's objects in (core.kubefed.io only for the FederatedTypeConfigs). */
const KUBEFED_GROUP_VERSIONS = [KUBEFED_TYPES, KUBEFED_SCHEDULING, "core.kubefed.io/v1beta1", "multiclusterdns.kubefed.io/v1alpha1"];

/** Every object of KubeFed's groups in the host, each kind listed across namespaces; none of a group it does not serve. */
async function hostObjects(host: KubeRest, timeoutMs: number): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  for (const gv of KUBEFED_GROUP_VERSIONS) {
    let list: { resources?: { name: string; kind: string }[] };
    try {
      list = await host.request("GET", `/apis/${gv}`, { timeoutMs });
    } catch (err) {
      if (isKubeStatus(err, 404)) continue;
      throw err;
    }
    for (const r of list.resources ?? []) {
      if (r.name.includes("/")) continue;
      if (gv.startsWith("core.") && r.kind !== "FederatedTypeConfig") continue;
      out.push(...(await listAll(host, `/apis/${gv}/${r.name}`, gv, r.kind, timeoutMs)));
    }
  }
  return out;
}

/** The objects in the files, or an error naming the file of one that is not a Kubernetes object. */
async function fileObjects(path: string): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  for (const { source, value } of await readSourcedObjects(path, { recursive: true })) {
    const o = value as Partial<KubeObject> | null;
    if (typeof o !== "object" || o === null || typeof o.apiVersion !== "string" || typeof o.kind !== "string" || typeof o.metadata?.name !== "string") {
      throw new FlagError(`${source}: an object without an apiVersion, a kind and a metadata.name`);
    }
    out.push(o as KubeObject);
  }
  return out;
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
    if (typeof file === "string") objects = await fileObjects(file);
    else {
      host = migrationClient(String(kubeconfig), "--kubefed-kubeconfig with KubeFed's host cluster's");
      objects = await hostObjects(host, timeoutMs);
    }
    control = migrationClient(controlKubeconfig(flags), "--kubeconfig with the control cluster's");
    return await runMigration(control, inWriteOrder(convertKubefed(objects)), { apply: flags.apply === true, format, timeoutMs, warn });
  } finally {
    host?.close();
    control?.close();
  }
}
