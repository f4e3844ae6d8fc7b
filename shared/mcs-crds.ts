// The CRDs Flotilla installs in members for multi-cluster services (DESIGN §13): ServiceExport and
// ServiceImport (multicluster.x-k8s.io, KEP-1645) and ClusterProperty (about.k8s.io, KEP-2149).
// They are data, YAML files in mcs-crds/ beside this module: in the sources shared/mcs-crds/, in a
// bundle mcs-crds/ beside agent.mjs and flotilla.mjs (scripts/bundle.ts copies it there), in tsc's
// build dist/shared/mcs-crds/ (`npm run build` copies it).
import { readdir, readFile } from "node:fs/promises";
import { parseAllDocuments } from "yaml";
import type { KubeObject } from "./api/types.ts";

/** The folder of the YAML files: the same name beside the module in every layout. */
export const MCS_CRD_DIR = new URL("./mcs-crds/", import.meta.url);

/** The CRDs' names. */
export const SERVICE_EXPORTS_CRD = "serviceexports.multicluster.x-k8s.io";
export const SERVICE_IMPORTS_CRD = "serviceimports.multicluster.x-k8s.io";
export const CLUSTER_PROPERTIES_CRD = "clusterproperties.about.k8s.io";

/** The CustomResourceDefinitions in mcs-crds/, in file-name order (ClusterProperty, ServiceExport, ServiceImport). */
export async function loadMcsCrds(dir: URL = MCS_CRD_DIR): Promise<KubeObject[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith(".yaml")).sort();
  const crds: KubeObject[] = [];
  for (const file of files) {
    for (const doc of parseAllDocuments(await readFile(new URL(file, dir), "utf8"))) {
      if (doc.errors.length > 0) throw new Error(`mcs-crds/${file}: ${doc.errors[0]?.message}`, { cause: doc.errors[0] });
      const obj = doc.toJS() as KubeObject | null;
      if (obj === null) continue;
      if (obj.kind !== "CustomResourceDefinition" || !obj.metadata?.name) {
        throw new Error(`mcs-crds/${file}: not a named CustomResourceDefinition (kind ${String(obj.kind)})`);
      }
      crds.push(obj);
    }
  }
  return crds;
}
