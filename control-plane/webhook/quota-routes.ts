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

/** The stored template a scale request names (its group, version, resource, namespace and name), or undefined when gone. */
async function storedTemplate(ctx: ControlPlaneContext, req: AdmissionRequest): Promise<KubeObject | undefined> {
  const r = req.resource;
  if (r === undefined || req.namespace === undefined || req.name === undefined) return undefined;
  const base = r.group === "" ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  try {
    return await ctx.rest.get<KubeObject>(`${base}/namespaces/${encodeURIComponent(req.namespace)}/${r.resource}/${encodeURIComponent(req.name)}`);
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
