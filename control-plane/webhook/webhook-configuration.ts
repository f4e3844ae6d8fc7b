// The ValidatingWebhookConfiguration the control plane applies (pure): how the apiserver reaches
// the webhook (a URL, or a Service in the cluster) and which requests it sends there.
import { X509Certificate } from "node:crypto";
import { isIP } from "node:net";
import type { KubeObject } from "../../shared/api/types.ts";
import { quotaWebhooks } from "./quota-webhooks.ts";

/** The configuration's name; every replica applies the same one. */
export const WEBHOOK_CONFIGURATION_NAME = "flotilla-control-plane";
/** The path of the customization check, as Karmada's webhook serves it. */
export const CUSTOMIZATION_WEBHOOK_PATH = "/validate-resourceinterpretercustomization";
/** The paths of the autoscaling kinds' checks, as Karmada's webhook serves them. */
export const FEDERATED_HPA_WEBHOOK_PATH = "/validate-federatedhpa";
export const CRON_FEDERATED_HPA_WEBHOOK_PATH = "/validate-cronfederatedhpa";
/** The apiserver gives up on a call after this long and, with failurePolicy Fail, refuses the write (Karmada's value). */
export const WEBHOOK_TIMEOUT_SECONDS = 10;

/** Where the apiserver calls the webhook: `https://host:port` (no path), or a Service of the control cluster. */
export type WebhookEndpoint = { url: string } | { service: { namespace: string; name: string; port: number } };

/**
 * The endpoint the flags name. `--webhook-service namespace/name[:port]` (port 443 if absent) or
 * `--webhook-url https://host:port`; with neither, the listen address itself, which must then
 * name a host the apiserver can dial (not 0.0.0.0 or ::). `boundPort` replaces a listen port 0.
 */
export function webhookEndpoint(flags: { listen: string; url?: string; service?: string }, boundPort?: number): WebhookEndpoint | Error {
  if (flags.url && flags.service) return new Error("give --webhook-url or --webhook-service, not both");
  if (flags.service) {
    const m = /^([a-z0-9-]+)\/([a-z0-9-]+)(?::(\d+))?$/.exec(flags.service);
    const port = m?.[3] === undefined ? 443 : Number(m[3]);
    if (!m || port < 1 || port > 65535) return new Error(`--webhook-service ${JSON.stringify(flags.service)}: want namespace/name or namespace/name:port`);
    return { service: { namespace: m[1] as string, name: m[2] as string, port } };
  }
  if (flags.url) {
    let u: URL;
    try {
      u = new URL(flags.url);
    } catch {
      return new Error(`--webhook-url ${JSON.stringify(flags.url)} is not a URL`);
    }
    if (u.protocol !== "https:" || (u.pathname !== "/" && u.pathname !== "") || u.search || u.hash || u.username) {
      return new Error(`--webhook-url ${JSON.stringify(flags.url)}: want https://host[:port], without a path (the webhook adds its own, ${CUSTOMIZATION_WEBHOOK_PATH} and others)`);
    }
    return { url: u.origin };
  }
  const i = flags.listen.lastIndexOf(":");
  const host = flags.listen.slice(0, i).replace(/^\[|\]$/g, "");
  if (i < 0 || host === "" || host === "0.0.0.0" || host === "::") {
    return new Error(`--webhook-listen ${JSON.stringify(flags.listen)} is no address the apiserver can call: give --webhook-url or --webhook-service`);
  }
  const port = boundPort ?? Number(flags.listen.slice(i + 1));
  return { url: `https://${host.includes(":") ? `[${host}]` : host}:${port}` };
}

/** The host the apiserver checks the webhook's serving certificate against: a Service's `<name>.<namespace>.svc`, or the URL's host. */
export function endpointHost(endpoint: WebhookEndpoint): string {
  if ("service" in endpoint) return `${endpoint.service.name}.${endpoint.service.namespace}.svc`;
  return new URL(endpoint.url).hostname.replace(/^\[|\]$/g, "");
}

/** Whether the serving certificate names `host` (a DNS name or an IP address), as the apiserver will check it. */
export function certificateNames(certPem: string, host: string): boolean {
  const cert = new X509Certificate(certPem);
  return isIP(host) === 0 ? cert.checkHost(host) !== undefined : cert.checkIP(host) !== undefined;
}

/** One validating webhook: CREATE and UPDATE of a flotilla.dev resource go to `path`. */
function webhook(name: string, resource: string, scope: "Cluster" | "Namespaced", path: string, endpoint: WebhookEndpoint, caBundle: string): Record<string, unknown> {
  const clientConfig = "url" in endpoint ? { url: `${endpoint.url}${path}`, caBundle } : { service: { ...endpoint.service, path }, caBundle };
  return {
    name,
    rules: [{ operations: ["CREATE", "UPDATE"], apiGroups: ["flotilla.dev"], apiVersions: ["*"], resources: [resource], scope }],
    clientConfig,
    failurePolicy: "Fail",
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    timeoutSeconds: WEBHOOK_TIMEOUT_SECONDS,
  };
}

/**
 * The configuration: CREATE and UPDATE of resourceinterpretercustomizations, federatedhpas,
 * cronfederatedhpas, federatedresourcequotas (and, in namespaces with one, of the templates with
 * replicas: quota-webhooks.ts) go to the webhook (their status subresource does not), which the apiserver
 * trusts through caBundle (the CA that signed the hub's serving certificate). failurePolicy Fail,
 * as Karmada's: while no control plane answers, these objects cannot be created or changed
 * (deleting one still works), rather than let in what nobody checked.
 */
export function validatingWebhookConfiguration(endpoint: WebhookEndpoint, caPem: string): KubeObject {
  const caBundle = Buffer.from(caPem).toString("base64");
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: WEBHOOK_CONFIGURATION_NAME, labels: { "app.kubernetes.io/part-of": "flotilla" } },
    webhooks: [
      webhook("resourceinterpretercustomization.flotilla.dev", "resourceinterpretercustomizations", "Cluster", CUSTOMIZATION_WEBHOOK_PATH, endpoint, caBundle),
      webhook("federatedhpa.flotilla.dev", "federatedhpas", "Namespaced", FEDERATED_HPA_WEBHOOK_PATH, endpoint, caBundle),
      webhook("cronfederatedhpa.flotilla.dev", "cronfederatedhpas", "Namespaced", CRON_FEDERATED_HPA_WEBHOOK_PATH, endpoint, caBundle),
      ...quotaWebhooks(endpoint, caBundle, webhook),
    ],
  };
}
