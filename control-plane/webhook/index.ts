// The validating admission webhook (entry point startWebhook): serves the customization,
// FederatedHPA and CronFederatedHPA checks over HTTPS with the hub's serving certificate, then
// applies the ValidatingWebhookConfiguration that sends the apiserver's CREATE and UPDATE of
// those kinds here.
import type { ResourceInterpreterCustomization } from "../../shared/api/customization.ts";
import { RESOURCES } from "../../shared/api/resources.ts";
import type { ScriptChecker } from "../../shared/interpreter/customization-check.ts";
import { collectionPath } from "../../shared/kube-rest.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import { type AdmissionRequest, type AdmissionResponse, requestOf, reviewCronFederatedHPA, reviewCustomization, reviewFederatedHPA, reviewResponse } from "./admission.ts";
import {
  certificateNames,
  CRON_FEDERATED_HPA_WEBHOOK_PATH,
  endpointHost,
  CUSTOMIZATION_WEBHOOK_PATH,
  FEDERATED_HPA_WEBHOOK_PATH,
  validatingWebhookConfiguration,
  WEBHOOK_CONFIGURATION_NAME,
  webhookEndpoint,
} from "./webhook-configuration.ts";
import { BadRequestError, startWebhookServer, type WebhookServer } from "./webhook-server.ts";
import { quotaRoutes } from "./quota-routes.ts";

/** The field manager of the configuration: the control plane's (crd-install/crds.ts's FIELD_MANAGER). */
const FIELD_MANAGER = "flotilla-control-plane";
const CONFIGURATION_PATH = `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${WEBHOOK_CONFIGURATION_NAME}`;

export interface WebhookPart extends Part {
  /** The bound port, once serving; undefined when the webhook is off. */
  port(): number | undefined;
}

/**
 * Off unless opts.webhook is set. `checkScript` compiles a script and finds its function: the
 * Lua runtime's, injected by the assembly (control-plane.ts).
 */
export function startWebhook(ctx: ControlPlaneContext, deps: { checkScript: ScriptChecker }): WebhookPart {
  const { opts } = ctx;
  const log = ctx.log.child({ component: "webhook" });
  let server: WebhookServer | undefined;

  const review = async (body: unknown): Promise<unknown> => {
    const req = requestOf(body);
    if (req instanceof Error) throw new BadRequestError(req.message);
    // Read live, not from a cache: a customization stored a moment ago must count, and
    // customizations are few and rarely written.
    const stored = await ctx.rest.get<{ items: ResourceInterpreterCustomization[] }>(collectionPath(RESOURCES.resourceInterpreterCustomization));
    const response = reviewCustomization(req, stored.items, deps.checkScript);
    if (!response.allowed) log.info({ customization: req.name, operation: req.operation, message: response.status?.message }, "customization refused");
    return reviewResponse(response);
  };
  // The autoscaling kinds' checks read nothing stored.
  const reviewWith = (kind: string, decide: (req: AdmissionRequest) => AdmissionResponse) => async (body: unknown): Promise<unknown> => {
    const req = requestOf(body);
    if (req instanceof Error) throw new BadRequestError(req.message);
    const response = decide(req);
    if (!response.allowed) log.info({ kind, name: req.name, operation: req.operation, message: response.status?.message }, "object refused");
    return reviewResponse(response);
  };

  return {
    port: () => server?.port,
    serve: async () => {
      const flags = opts.webhook;
      if (flags === undefined || flags.listen === "") return;
      server = await startWebhookServer({
        listen: flags.listen,
        certPem: opts.tls.certPem,
        keyPem: opts.tls.keyPem,
        routes: {
          ...quotaRoutes(ctx, log),
          [CUSTOMIZATION_WEBHOOK_PATH]: review,
          [FEDERATED_HPA_WEBHOOK_PATH]: reviewWith("FederatedHPA", reviewFederatedHPA),
          [CRON_FEDERATED_HPA_WEBHOOK_PATH]: reviewWith("CronFederatedHPA", reviewCronFederatedHPA),
        },
        onError: (err, path) => log.error({ err, path }, "admission review failed"),
        ...(flags.clientAuth === undefined ? {} : { clientAuth: flags.clientAuth }),
      });
      const endpoint = webhookEndpoint(flags, server.port);
      if (endpoint instanceof Error) throw endpoint;
      const host = endpointHost(endpoint);
      if (!certificateNames(opts.tls.certPem, host)) {
        log.error({ host }, "the hub's certificate does not name the host the apiserver calls the webhook by: it will refuse the webhook's TLS, and every write the webhook checks is refused (failurePolicy Fail) until the certificate names it (docs/operations/upgrades.md)");
      }
      // Served before it is configured: the apiserver never calls a webhook that is not listening
      // yet. Every replica applies the same object (a no-op but for the first).
      await ctx.rest.apply(CONFIGURATION_PATH, validatingWebhookConfiguration(endpoint, opts.tls.caPem), FIELD_MANAGER);
      log.info({ webhookPort: server.port, endpoint }, "admission webhook listening and configured");
    },
    // The configuration stays: other replicas serve it, and removing it would let unchecked
    // scripts in (failurePolicy Fail refuses them while no replica answers).
    stop: () => server?.close(),
  };
}
