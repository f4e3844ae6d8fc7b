// `flotillactl promote <kind>/<name> -n ns --cluster C --cluster-kubeconfig F` (karmadactl
// promote): adopts an object that already runs in a member as a template. It reads the member's
// object with the member's own kubeconfig (pull mode: the control plane never reaches a member),
// then writes straight to the control cluster, as `accept` does, with the user's credentials: the
// policy first (so the template's first match is it), then the cleaned template. The Admin API has
// no write of the user's objects, and these two are the user's, as if `kubectl create`d.
import { existsSync } from "node:fs";
import { TemplateResolver } from "../../control-plane/kinds/template-resolver.ts";
import { RESOURCES } from "../../shared/api/resources.ts";
import type { KubeObject } from "../../shared/api/types.ts";
import { FlagError, type FlagValues } from "../../shared/flags.ts";
import { isKubeStatus, KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { loadKubeConfig } from "../../shared/kubeconfig.ts";
import { controlKubeconfig } from "./accept.ts";
import { kindAndName, structured } from "./format.ts";
import { defaultPolicyName, describe, notPromotable, promotionPolicy, templateOf } from "./promotion.ts";

type Writer = (s: string) => void;

/** Promotes; returns what was done (or, with -o yaml|json, the template and policy, writing nothing). */
export async function runPromote(flags: FlagValues, arg: string | undefined, format: "table" | "yaml" | "json", timeoutMs: number, warn: Writer): Promise<string> {
  const kn = kindAndName(arg);
  if ("error" in kn) throw new FlagError(kn.error);
  const cluster = String(flags.cluster);
  const control = restFor(controlKubeconfig(flags), undefined, "--kubeconfig with the control cluster's");
  const member = restFor(String(flags["cluster-kubeconfig"]), typeof flags["cluster-context"] === "string" ? flags["cluster-context"] : undefined, "--cluster-kubeconfig with the member's");
  try {
    const get = <T>(rest: KubeRest, path: string) => rest.request<T>("GET", path, { timeoutMs });
    await get(control, objectPath(RESOURCES.cluster, undefined, cluster)).catch((err: unknown) => {
      throw isKubeStatus(err, 404) ? new Error(`cluster ${JSON.stringify(cluster)} is not registered (no Cluster in the control cluster)`, { cause: err }) : err;
    });
    // The kind must be served where the template goes; the member's is read at the same path.
    const ref = await new TemplateResolver(control).resolve({ apiVersion: "", kind: kn.kind, namespace: String(flags.namespace ?? "default"), name: kn.name }).catch((err: unknown) => {
      throw new Error((err as Error).message, { cause: err });
    });
    const what = `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ""}${ref.name}`;
    const live = await get<KubeObject>(member, ref.path).catch((err: unknown) => {
      throw isKubeStatus(err, 404) ? new Error(`${cluster} has no ${what} (or does not serve ${ref.apiVersion} ${ref.kind})`, { cause: err }) : err;
    });
    if (await exists(control, ref.path, timeoutMs)) throw new Error(`the template ${what} already exists in the control cluster: edit the policy that selects it to place it on ${cluster}`);
    const refused = notPromotable(live, cluster);
    if (refused !== undefined) throw new Error(refused);
    if (ref.namespace !== undefined && !(await exists(control, `/api/v1/namespaces/${encodeURIComponent(ref.namespace)}`, timeoutMs))) {
      throw new Error(`namespace ${ref.namespace} does not exist in the control cluster: create it there first (kubectl create namespace ${ref.namespace})`);
    }
    const template = templateOf(live);
    const policyName = String(flags["policy-name"] || defaultPolicyName(ref.apiVersion, ref.kind, ref.namespace, ref.name));
    const policy = flags["auto-create-policy"] === false ? undefined : promotionPolicy(template, cluster, policyName);
    const policyResource = ref.namespace === undefined ? RESOURCES.clusterPropagationPolicy : RESOURCES.propagationPolicy;
    const policyPath = objectPath(policyResource, ref.namespace, policyName);
    if (policy !== undefined && (await exists(control, policyPath, timeoutMs))) {
      throw new Error(`the ${policy.kind} ${ref.namespace ? `${ref.namespace}/` : ""}${policyName} already exists: pass another --policy-name, or --auto-create-policy=false and edit it`);
    }
    if (format !== "table") return [template, ...(policy ? [policy] : [])].map((o) => structured(o, format)).join(format === "yaml" ? "\n---\n" : "\n");
    const plan = `${what} from ${cluster}${policy ? `, with ${policy.kind} ${policyName} (clusterNames [${cluster}], conflictResolution Overwrite)` : ""}`;
    if (flags["dry-run"] === true) return `would promote ${plan} (dry run: nothing written)`;
    const collection = (path: string) => path.slice(0, path.lastIndexOf("/"));
    if (policy !== undefined) await control.request("POST", collection(policyPath), { body: policy, timeoutMs });
    try {
      await control.request("POST", collection(ref.path), { body: template, timeoutMs });
    } catch (err) {
      // Nothing was bound to the policy just created: take it back so a retry starts clean.
      if (policy !== undefined) await control.request("DELETE", policyPath, { timeoutMs }).catch(() => warn(`# the ${policy.kind} ${policyName} was created and could not be removed: delete it before trying again`));
      throw new Error(`creating the template ${describe(template)} in the control cluster failed: ${(err as Error).message}`, { cause: err });
    }
    return `promoted ${plan}: ${cluster}'s agent adopts the running object (same uid, no restart)`;
  } finally {
    control.close();
    member.close();
  }
}

function restFor(kubeconfig: string, context: string | undefined, hint: string): KubeRest {
  if (!existsSync(kubeconfig)) throw new Error(`no kubeconfig at ${kubeconfig}: pass ${hint}`);
  const kc = loadKubeConfig(kubeconfig);
  if (context !== undefined && context !== "") {
    if (!kc.getContexts().some((c) => c.name === context)) throw new Error(`no context ${JSON.stringify(context)} in ${kubeconfig}`);
    kc.setCurrentContext(context);
  }
  return new KubeRest(kc, { maxSockets: 1 });
}

async function exists(rest: KubeRest, path: string, timeoutMs: number): Promise<boolean> {
  try {
    await rest.request("GET", path, { timeoutMs });
    return true;
  } catch (err) {
    if (isKubeStatus(err, 404)) return false;
    throw err;
  }
}
