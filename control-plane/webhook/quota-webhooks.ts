// The FederatedResourceQuota webhooks of the configuration (issue 26): the quota objects' check,
// and the templates' check in namespaces that have a quota.
import { QUOTA_NAMESPACE_LABEL } from "../quota/quota-namespaces.ts";
import type { WebhookEndpoint } from "./webhook-configuration.ts";

/** webhook-configuration.ts's builder of one webhook (passed in: that file includes these). */
type MakeWebhook = (name: string, resource: string, scope: "Cluster" | "Namespaced", path: string, endpoint: WebhookEndpoint, caBundle: string) => Record<string, unknown>;

/** Karmada's path of the quota object's check. */
export const FEDERATED_RESOURCE_QUOTA_WEBHOOK_PATH = "/validate-federatedresourcequota";
/** The templates' quota check (Karmada checks bindings instead; Flotilla refuses at the template). */
export const TEMPLATE_QUOTA_WEBHOOK_PATH = "/validate-resourcetemplate-quota";

/** The kinds with replicas whose templates the quota checks, with their scale subresources. */
const TEMPLATE_RULES = [
  { operations: ["CREATE", "UPDATE"], apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments", "deployments/scale", "statefulsets", "statefulsets/scale", "replicasets", "replicasets/scale"], scope: "Namespaced" },
  { operations: ["CREATE", "UPDATE"], apiGroups: ["batch"], apiVersions: ["v1"], resources: ["jobs"], scope: "Namespaced" },
];

/**
 * failurePolicy Fail, as all of Karmada's webhooks (its binding check, FederatedQuotaEnforcement,
 * too): while no control plane answers, a template in a namespace with a quota cannot be created
 * or scaled, rather than let a workload past the quota unchecked. The namespaceSelector keeps that
 * to namespaces with a FederatedResourceQuota (the label the control plane keeps on them): an
 * outage never blocks templates anywhere else.
 */
export function quotaWebhooks(endpoint: WebhookEndpoint, caBundle: string, make: MakeWebhook): Record<string, unknown>[] {
  return [
    make("federatedresourcequota.flotilla.dev", "federatedresourcequotas", "Namespaced", FEDERATED_RESOURCE_QUOTA_WEBHOOK_PATH, endpoint, caBundle),
    {
      ...make("resourcetemplate-quota.flotilla.dev", "", "Namespaced", TEMPLATE_QUOTA_WEBHOOK_PATH, endpoint, caBundle),
      rules: TEMPLATE_RULES,
      namespaceSelector: { matchLabels: { [QUOTA_NAMESPACE_LABEL]: "true" } },
    },
  ];
}
