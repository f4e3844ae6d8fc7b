import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { validatingWebhookConfiguration } from "./webhook-configuration.ts";

describe("the templates' quota webhook", () => {
  const ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  const hook = (validatingWebhookConfiguration({ service: { namespace: "flotilla-system", name: "cp", port: 443 } }, ca).webhooks as Record<string, unknown>[]).find((h) => h.name === "resourcetemplate-quota.flotilla.dev");
  it("takes only namespaces the control plane labels as having a FederatedResourceQuota, failing closed there", () => {
    assert.deepEqual(hook?.namespaceSelector, { matchLabels: { "flotilla.dev/has-federated-resource-quota": "true" } });
    assert.equal(hook?.failurePolicy, "Fail");
  });
  it("takes CREATE and UPDATE of the kinds with replicas and their scale subresources", () => {
    assert.deepEqual(hook?.rules, [
      { operations: ["CREATE", "UPDATE"], apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments", "deployments/scale", "statefulsets", "statefulsets/scale", "replicasets", "replicasets/scale"], scope: "Namespaced" },
      { operations: ["CREATE", "UPDATE"], apiGroups: ["batch"], apiVersions: ["v1"], resources: ["jobs"], scope: "Namespaced" },
    ]);
    assert.deepEqual(hook?.clientConfig, { service: { namespace: "flotilla-system", name: "cp", port: 443, path: "/validate-resourcetemplate-quota" }, caBundle: Buffer.from(ca).toString("base64") });
  });
});
