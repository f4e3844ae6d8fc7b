// The webhook's FederatedResourceQuota routes (issue 26): the quota objects' check, and the
// templates' (read from the shared caches; a scale request's template read live).
import type { Logger } from "pino";
import type { KubeObject } from "../../shared/api/types.ts";
import { isKubeStatus } from "../../shared/kube-rest.ts";
import type { ControlPlaneContext } from "../context.ts";
import { type AdmissionRequest, requestOf, reviewResponse } from "./admission.ts";
import { reviewFederatedResourceQuota, reviewTemplateQuota } from "./quota-review.ts";
import { FEDERATED_RESOURCE_QUOTA_WEBHOOK_PATH, TEMPLATE_QUOTA_WEBHOOK_PATH } from "./quota-webhooks.ts";
import { BadRequestError } from "./webhook-server.ts";

/** A version, a resource, or one label of a group (a DNS subdomain, or "" for the core group), as the apiserver names them. */
const SEGMENT = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * The apiserver path of the template a scale request names, or undefined when the request names
 * none, or names it with a group, version or resource no apiserver could serve (the review's body
 * is input: issue 37, never a path of its own making). Namespace and name are encoded.
 */
export function storedTemplatePath(req: Pick<AdmissionRequest, "resource" | "namespace" | "name">): string | undefined {
  const r: unknown = req.resource;
  if (typeof r !== "object" || r === null || typeof req.namespace !== "string" || typeof req.name !== "string") return undefined;
  const { group, version, resource } = r as Record<string, unknown>;
  if (typeof group !== "string" || typeof version !== "string" || typeof resource !== "string") return undefined;
  // Lengths first: the patterns then run on at most 253 characters.
  const groupOk = group === "" || group.split(".").every((label) => label.length <= 63 && SEGMENT.test(label));
  if (group.length > 253 || version.length > 63 || resource.length > 63 || !groupOk || !SEGMENT.test(version) || !SEGMENT.test(resource)) return undefined;
  const base = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
  return `${base}/namespaces/${encodeURIComponent(req.namespace)}/${resource}/${encodeURIComponent(req.name)}`;
}

/** The stored template a scale request names (its group, version, resource, namespace and name), or undefined when gone. */
async function storedTemplate(ctx: ControlPlaneContext, req: AdmissionRequest): Promise<KubeObject | undefined> {
  const path = storedTemplatePath(req);
  if (path === undefined) return undefined;
  try {
    return await ctx.rest.get<KubeObject>(path);
  } catch (err) {
    if (isKubeStatus(err, 404)) return undefined;
    throw err;
  }
}

export function quotaRoutes(ctx: ControlPlaneContext, log: Logger): Record<string, (body: unknown) => Promise<unknown>> {
  const parse = (body: unknown): AdmissionRequest => {
    const req = requestOf(body);
    if (req instanceof Error) throw new BadRequestError(req.message);
    return req;
  };
  return {
    [FEDERATED_RESOURCE_QUOTA_WEBHOOK_PATH]: async (body) => {
      const req = parse(body);
      const response = reviewFederatedResourceQuota(req);
      if (!response.allowed) log.info({ kind: "FederatedResourceQuota", name: req.name, operation: req.operation, message: response.status?.message }, "object refused");
      return reviewResponse(response);
    },
    [TEMPLATE_QUOTA_WEBHOOK_PATH]: async (body) => {
      const req = parse(body);
      const response = await reviewTemplateQuota(req, ctx, (r) => storedTemplate(ctx, r));
      if (!response.allowed) log.info({ namespace: req.namespace, name: req.name, resource: req.resource?.resource, subResource: req.subResource, message: response.status?.message }, "template refused by quota");
      return reviewResponse(response);
    },
  };
}
