// Flotilla's CRDs (group flotilla.dev): loads the YAML files in crds/ and installs them in the
// control cluster with server-side apply, waiting until the apiserver serves each one.
import { installMcsCrds } from "../../shared/mcs-crd-install.ts";
import { existsSync } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type KubeConfig, Watch } from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";
import type { KubeObject } from "../../shared/api/types.ts";
import { KubeRest, objectPath, type ResourceInfo } from "../../shared/kube-rest.ts";
import { admissionPolicies } from "./admission-policies.ts";
import { CRD_REVISION, CRD_REVISION_ANNOTATION, crdInstallAction, crdsOfRevision, OWN_GROUPS } from "./crd-revision.ts";

/** The field manager of everything the control plane applies. */
export const FIELD_MANAGER = "flotilla-control-plane";

// The YAML files: crds/ beside the module in a bundle (flotilla.mjs: scripts/bundle.ts copies them
// there), else control-plane/crds/, beside this folder, from the sources and tsc's build.
const crdDir = [new URL("./crds/", import.meta.url), new URL("../crds/", import.meta.url)].find((u) => existsSync(u)) ?? new URL("../crds/", import.meta.url);
const CRDS: ResourceInfo = { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", plural: "customresourcedefinitions", namespaced: false };
const ADMISSION_POLICY_RESOURCE: Record<string, ResourceInfo> = {
  ValidatingAdmissionPolicy: { apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingAdmissionPolicy", plural: "validatingadmissionpolicies", namespaced: false },
  ValidatingAdmissionPolicyBinding: { apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingAdmissionPolicyBinding", plural: "validatingadmissionpolicybindings", namespaced: false },
};
const CRDS_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const defaultTimeoutMs = 60_000;
const relistPauseMs = 200;

/** The CRDs parsed at build time, beside a bundle's module (writeParsedCrds). */
export const PARSED_CRDS_FILE = "crds.json";
const parsedCrdsFile = new URL(`./${PARSED_CRDS_FILE}`, import.meta.url);

/**
 * The CustomResourceDefinitions in control-plane/crds/, in file-name order. A bundle reads them
 * as its build parsed them, from crds.json beside it: parsing the YAML (0.5 MiB) took about 0.6 s
 * of CPU of each control plane's start (2026-11-30). Anything else (the sources, the compiled
 * build) has no crds.json beside it and parses the YAML.
 */
export async function loadCrds(): Promise<KubeObject[]> {
  const parsed = await readFile(parsedCrdsFile, "utf8").catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return undefined;
    throw err;
  });
  const crds = parsed === undefined ? undefined : (JSON.parse(parsed) as KubeObject[]);
  // A crds.json of another revision (an older build's, left beside a newer module) is not ours.
  return crds !== undefined && crdsOfRevision(crds, CRD_REVISION) ? crds : parseCrdFiles();
}

/** Writes the parsed CRDs where a bundle in outDir reads them (scripts/bundle.ts, test/env/test-bundles.ts). */
export async function writeParsedCrds(outDir: string): Promise<void> {
  await writeFile(join(outDir, PARSED_CRDS_FILE), JSON.stringify(await parseCrdFiles()));
}

/** The CRD files, parsed. */
export async function parseCrdFiles(): Promise<KubeObject[]> {
  const files = (await readdir(crdDir)).filter((f) => f.endsWith(".yaml")).sort();
  const crds: KubeObject[] = [];
  for (const file of files) {
    for (const doc of parseAllDocuments(await readFile(new URL(file, crdDir), "utf8"))) {
      if (doc.errors.length > 0) throw new Error(`crds/${file}: ${doc.errors[0]?.message}`, { cause: doc.errors[0] });
      const obj = doc.toJS() as KubeObject | null;
      if (obj === null) continue;
      if (obj.kind !== "CustomResourceDefinition" || !obj.metadata?.name) {
        throw new Error(`crds/${file}: not a named CustomResourceDefinition (kind ${String(obj.kind)})`);
      }
      crds.push(obj);
    }
  }
  return crds;
}

/**
 * Server-side-applies every CRD (forcing ownership of its fields) and resolves once the apiserver
 * reports each one Established. Safe to run again: an unchanged CRD is a no-op.
 */
export async function installCrds(kc: KubeConfig, opts: { timeoutMs?: number; log?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void } } = {}): Promise<void> {
  const crds = await loadCrds();
  // Plain JSON over the control plane's own client: client-node's typed API would bring its
  // generated models (tens of MiB of RSS) into the control plane for this one start-up step.
  const rest = new KubeRest(kc);
  try {
    const served = new Map((await rest.get<CrdList>(CRDS_PATH)).items.map((c) => [c.metadata?.name ?? "", c]));
    for (const crd of crds) {
      const name = crd.metadata.name as string;
      const theirs = served.get(name)?.metadata;
      const action = crdInstallAction(theirs, CRD_REVISION, { shared: !OWN_GROUPS.includes((crd.spec as { group: string }).group) });
      if (action === "keep-newer") {
        // A newer control plane installed it (a rolling upgrade, or we are the rollback): never downgrade.
        opts.log?.warn({ crd: name, served: theirs?.annotations?.[CRD_REVISION_ANNOTATION], ours: CRD_REVISION }, "a newer revision of the CRD is served; keeping it");
        continue;
      }
      if (action === "keep-theirs") {
        // Another installer's (a shared API, such as ClusterProfile): never taken over, nor its fields pruned.
        opts.log?.info({ crd: name }, "the CRD is served by another installer; keeping theirs");
        continue;
      }
      await rest.apply(objectPath(CRDS, undefined, name), crd, FIELD_MANAGER, true);
    }
    await waitEstablished(kc, rest, new Set(crds.map((c) => c.metadata.name as string)), opts.timeoutMs ?? defaultTimeoutMs);
    // Issue 40: the MCS API's kinds, so a ServiceExport can be a template (never downgraded).
    // A failure there (another installer's CRD the apiserver refuses to change) is said, and the
    // control plane starts without it: multi-cluster services are not what every fleet runs.
    const warn = (o: object, m: string) => opts.log?.warn(o, m);
    await installMcsCrds(rest, { info: () => undefined, warn }).catch((err: unknown) => warn({ err: String(err) }, "cannot install the MCS API's CRDs in the control cluster; ServiceExport templates wait for them"));
    // After the kinds they check are served (admission-policies.ts).
    for (const p of admissionPolicies()) await rest.apply(objectPath(ADMISSION_POLICY_RESOURCE[p.kind] as ResourceInfo, undefined, p.metadata.name as string), p, FIELD_MANAGER, true);
  } finally {
    rest.close();
  }
}

/** What this file reads of a served CRD. */
interface Crd {
  metadata?: { name?: string; annotations?: Record<string, string> };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}
interface CrdList {
  metadata?: { resourceVersion?: string };
  items: Crd[];
}

/** Established: the apiserver serves the kind. NamesAccepted=False never heals by itself. */
function crdState(crd: Crd): "established" | "pending" | Error {
  const conditions = crd.status?.conditions ?? [];
  const names = conditions.find((c) => c.type === "NamesAccepted");
  if (names?.status === "False") {
    return new Error(`CRD ${crd.metadata?.name}: names not accepted: ${names.reason}: ${names.message}`);
  }
  return conditions.some((c) => c.type === "Established" && c.status === "True") ? "established" : "pending";
}

/** Lists, then watches from the list's resourceVersion until every named CRD is Established. */
async function waitEstablished(kc: KubeConfig, rest: KubeRest, names: Set<string>, timeoutMs: number): Promise<void> {
  const pending = new Set(names);
  const deadline = Date.now() + timeoutMs;
  const observe = (crd: Crd): void => {
    const name = crd.metadata?.name;
    if (name === undefined || !pending.has(name)) return;
    const state = crdState(crd);
    if (state instanceof Error) throw state;
    if (state === "established") pending.delete(name);
  };
  for (;;) {
    const list = await rest.get<CrdList>(CRDS_PATH);
    list.items.forEach(observe);
    if (pending.size === 0) return;
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for CRDs to be Established: ${[...pending].join(", ")}`);
    }
    // A watch that ends early (closed by the server, 410 Gone, a dropped connection) just means:
    // list again, after a short pause so a failing watch cannot spin.
    await watchUntilDone(kc, list.metadata?.resourceVersion, observe, () => pending.size === 0, remaining);
    if (pending.size > 0) await sleep(Math.min(relistPauseMs, Math.max(0, deadline - Date.now())));
  }
}

function watchUntilDone(
  kc: KubeConfig,
  resourceVersion: string | undefined,
  observe: (crd: Crd) => void,
  done: () => boolean,
  timeoutMs: number,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let controller: AbortController | undefined;
    let settled = false;
    const finish = (err?: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      controller?.abort();
      if (err === undefined) resolve();
      else reject(err instanceof Error ? err : new Error(String(err)));
    };
    const timer = setTimeout(() => finish(), timeoutMs);
    new Watch(kc)
      .watch(
        CRDS_PATH,
        { resourceVersion, allowWatchBookmarks: false },
        (phase: string, obj: Crd) => {
          if (phase === "ERROR") return finish();
          if (phase !== "ADDED" && phase !== "MODIFIED") return;
          try {
            observe(obj);
          } catch (err) {
            return finish(err);
          }
          if (done()) finish();
        },
        // The caller lists again after any end, error or not, and gives up at its deadline.
        () => finish(),
      )
      .then(
        (c) => {
          controller = c;
          if (settled) c.abort();
        },
        () => finish(),
      );
  });
}
