// The Admin API's Plan: what applying objects would ship, before they are applied. Each object is
// first checked by the control cluster with a dry run (defaults filled in, schema, CEL and
// admission refusals reported); policies among them replace the stored ones of the same name;
// then each template is planned by plan.ts against the caches and the Works held now.
import type { InterpreterRegistry } from "../../shared/interpreter/registry.ts";
import { status as GrpcStatus } from "@grpc/grpc-js";
import { GROUP, type KubeObject, type OverridePolicy, type PropagationPolicy } from "../../shared/api/types.ts";
import type { PlannedWork as PlannedWorkMessage, PlanRequest, PlanResponse, TemplatePlan } from "../../shared/gen/flotilla/v1alpha1/admin.ts";
import { isKubeStatus, KubeError, type KubeRest } from "../../shared/kube-rest.ts";
import { mapLimit } from "../../shared/map-limit.ts";
import { workKey } from "../../shared/work-key.ts";
import type { Caches } from "../caches/caches.ts";
import { redactManifests } from "./live-view.ts";
import { type PlannedWork, planTemplate } from "./plan.ts";
import { RpcError } from "../rpc.ts";
import { type ResolvedRef, refName, type TemplateResolver } from "../kinds/template-resolver.ts";
import { isPropagatable } from "../detector/template-informers.ts";
import type { WorkStore } from "../works/work-store.ts";

/** The most objects one Plan takes. */
export const MAX_PLAN_OBJECTS = 500;
/** Dry runs one Plan has in flight at once. */
const DRY_RUNS_IN_FLIGHT = 8;

const POLICY_KINDS = new Set(["PropagationPolicy", "ClusterPropagationPolicy"]);
const OVERRIDE_KINDS = new Set(["OverridePolicy", "ClusterOverridePolicy"]);

export interface PlanDeps {
  caches: Caches;
  works: WorkStore;
  rest: KubeRest;
  resolver: TemplateResolver;
  requireAcceptance?: boolean;
  /** The fleet's Secret digest key (secret-digest.ts). */
  digestKey: Buffer;
  /** Refuses (throws) a plan of objects the caller may not see, before any is dry-run (a viewer's plan of a Secret). */
  mayPlan?: (objects: ResolvedRef[]) => void;
  /** Each kind's interpreter (customizations over the native ones). */
  interpreters?: InterpreterRegistry;
}

export async function planObjects(deps: PlanDeps, req: PlanRequest): Promise<PlanResponse> {
  if (req.objects.length === 0) throw new RpcError(GrpcStatus.INVALID_ARGUMENT, "no object to plan");
  if (req.objects.length > MAX_PLAN_OBJECTS) throw new RpcError(GrpcStatus.INVALID_ARGUMENT, `${req.objects.length} objects: a plan takes at most ${MAX_PLAN_OBJECTS}`);
  const objects = req.objects.map((bytes, i) => parseObject(bytes, req.objects.length > 1 ? `object ${i + 1}: ` : ""));
  for (const o of objects) {
    if (o.metadata.namespace && req.namespace && o.metadata.namespace !== req.namespace) {
      throw new RpcError(GrpcStatus.INVALID_ARGUMENT, `${o.kind} ${o.metadata.name} names namespace ${JSON.stringify(o.metadata.namespace)}, not ${JSON.stringify(req.namespace)}`);
    }
  }
  const refs = await mapLimit(objects, DRY_RUNS_IN_FLIGHT, (object) =>
    deps.resolver.resolve({ apiVersion: object.apiVersion, kind: object.kind, namespace: object.metadata.namespace || req.namespace, name: object.metadata.name ?? "" }),
  );
  deps.mayPlan?.(refs);
  const checked = await mapLimit(objects, DRY_RUNS_IN_FLIGHT, async (object, i) => {
    const ref = refs[i] as ResolvedRef;
    const proposed: KubeObject = { ...object, metadata: { ...object.metadata } };
    if (ref.namespace === undefined) delete proposed.metadata.namespace;
    else proposed.metadata.namespace = ref.namespace;
    return { ref, ...(await dryRun(deps.rest, ref, proposed)) };
  });
  const notes = checked.flatMap((c) => (c.note === undefined ? [] : [c.note]));
  const ours = (o: KubeObject, kinds: Set<string>) => o.apiVersion.startsWith(`${GROUP}/`) && kinds.has(o.kind);
  const proposedPolicies = checked.map((c) => c.object).filter((o) => ours(o, POLICY_KINDS)) as PropagationPolicy[];
  const proposedOverrides = checked.map((c) => c.object).filter((o) => ours(o, OVERRIDE_KINDS)) as OverridePolicy[];
  const policies = replaceByName(deps.caches.allPolicies(), proposedPolicies);
  const overrides = replaceByName(deps.caches.allOverrides(), proposedOverrides);
  const liveClusters = deps.caches.placeableClusters();
  const templates: TemplatePlan[] = [];
  for (const { ref, object } of checked) {
    if (!isPropagatable(ref)) {
      if (!ours(object, POLICY_KINDS) && !ours(object, OVERRIDE_KINDS)) notes.push(`${ref.kind} ${refName(ref)} is not propagated: Flotilla does not send this kind to members`);
      continue;
    }
    const key = workKey(ref);
    const interpreter = deps.interpreters?.for(object);
    const plan = planTemplate({
      template: object,
      ...(interpreter === undefined ? {} : { interpreter }),
      policies,
      liveClusters,
      requireAcceptance: deps.requireAcceptance ?? false,
      clusterNamed: (n) => deps.caches.clusters.get(n),
      overrides,
      existing: deps.caches.bindingOf(ref),
      workNow: (cluster) => deps.works.get(cluster, key),
    });
    templates.push({
      template: { apiVersion: ref.apiVersion, kind: ref.kind, namespace: ref.namespace ?? "", name: ref.name },
      policy: plan.policy ?? "",
      scheduleMessage: plan.scheduleMessage ?? "",
      unplaced: plan.unplaced,
      clusters: plan.clusters.map((c) => ({ cluster: c.cluster, now: message(c.now, deps.digestKey), planned: message(c.planned, deps.digestKey), change: c.change })),
    });
  }
  return { templates, notes };
}

/** The object a request carries, or INVALID_ARGUMENT saying what is wrong with it. */
function parseObject(bytes: Uint8Array, which: string): KubeObject {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch (err) {
    throw new RpcError(GrpcStatus.INVALID_ARGUMENT, `${which}not JSON: ${(err as Error).message}`);
  }
  const o = value as Partial<KubeObject> | null;
  if (typeof o !== "object" || o === null || Array.isArray(o)) throw new RpcError(GrpcStatus.INVALID_ARGUMENT, `${which}not a JSON object`);
  const missing = [
    typeof o.apiVersion === "string" && o.apiVersion !== "" ? "" : "apiVersion",
    typeof o.kind === "string" && o.kind !== "" ? "" : "kind",
    typeof o.metadata?.name === "string" && o.metadata.name !== "" ? "" : "metadata.name",
  ].filter((m) => m !== "");
  if (missing.length > 0) throw new RpcError(GrpcStatus.INVALID_ARGUMENT, `${which}the object has no ${missing.join(", ")}`);
  return o as KubeObject;
}

/**
 * The object as the control cluster would store it if it replaced what is there: defaults set,
 * refused with the apiserver's message when it would be. Where the dry run cannot say (its
 * namespace does not exist yet), the object as given, with a note.
 */
async function dryRun(rest: KubeRest, ref: ResolvedRef, object: KubeObject): Promise<{ object: KubeObject; note?: string }> {
  const existing = await rest.get<KubeObject>(ref.path).catch((err: unknown) => {
    if (isKubeStatus(err, 404)) return undefined;
    throw err;
  });
  const query = { dryRun: "All", fieldManager: "flotillactl-plan" };
  try {
    // Custom resources take no update without the resourceVersion it replaces.
    const stored =
      existing !== undefined
        ? await rest.request<KubeObject>("PUT", ref.path, { body: { ...object, metadata: { ...object.metadata, resourceVersion: existing.metadata.resourceVersion } }, query })
        : await rest.request<KubeObject>("POST", ref.path.slice(0, ref.path.lastIndexOf("/")), { body: object, query });
    return { object: stored };
  } catch (err) {
    if (!(err instanceof KubeError)) throw err;
    const answer = dryRunAnswer(err.status, err.message, `${ref.kind} ${refName(ref)}`, ref.namespace);
    if (answer === undefined) throw err;
    if (answer instanceof RpcError) throw answer;
    return { object, note: answer.note };
  }
}

/**
 * What a dry run's refusal means for a plan: a note (the object is planned as given), a refusal
 * for the caller, or undefined for an error that is not about the object (a server failure).
 */
export function dryRunAnswer(status: number, message: string, what: string, namespace: string | undefined): { note: string } | RpcError | undefined {
  if (status === 404 && namespace !== undefined) return { note: `${what} not checked by the control cluster: namespace ${JSON.stringify(namespace)} does not exist there yet` };
  if (status === 401 || status === 403) return new RpcError(GrpcStatus.FAILED_PRECONDITION, `the control plane may not check ${what} in the control cluster (its RBAC): ${message}`);
  if (status === 409) return new RpcError(GrpcStatus.ABORTED, `${what} changed in the control cluster while planning; plan again`);
  if (status >= 400 && status < 500) return new RpcError(GrpcStatus.INVALID_ARGUMENT, `the control cluster would refuse ${what}: ${message}`);
  return undefined;
}

/** `stored` with each proposed object in place of the stored one of the same kind, namespace and name. */
function replaceByName<T extends KubeObject>(stored: T[], proposed: T[]): T[] {
  const id = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name ?? ""}`;
  const replaced = new Set(proposed.map(id));
  return [...stored.filter((o) => !replaced.has(id(o))), ...proposed];
}


/** A planned Work for the caller; Secret values as digests (plans end up in CI logs and reviews). */
function message(w: PlannedWork | undefined, digestKey: Buffer): PlannedWorkMessage | undefined {
  if (w === undefined) return undefined;
  return { ...(w.replicas === undefined ? {} : { replicas: w.replicas }), contentHash: w.hash, manifests: redactManifests(w.manifests, digestKey), error: w.error ?? "" };
}
