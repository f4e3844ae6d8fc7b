// Karmada's webhook configurations, pointed at the local karmada-webhook (karmada.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import { flagValue, webhookConfiguration } from "./karmada.ts";

const ca = Buffer.from("-----BEGIN CERTIFICATE-----\nfake\n-----END CERTIFICATE-----\n");

/** The shape of Karmada's artifacts/deploy/webhook-configuration.yaml, two kinds, placeholders kept. */
const karmadaYaml = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: mutating-config
webhooks:
  - name: propagationpolicy.karmada.io
    clientConfig:
      url: https://karmada-webhook.karmada-system.svc:443/mutate-propagationpolicy
      caBundle: {{caBundle}}
    failurePolicy: Fail
    timeoutSeconds: 3
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: validating-config
webhooks:
  - name: propagationpolicy.karmada.io
    clientConfig:
      url: https://karmada-webhook.karmada-system.svc:443/validate-propagationpolicy
      caBundle: {{caBundle}}
    timeoutSeconds: 3
  - name: resourceinterpretercustomization.karmada.io
    clientConfig:
      url: https://karmada-webhook.karmada-system.svc:443/validate-resourceinterpretercustomization
      caBundle: {{caBundle}}
`;

interface Hook {
  name: string;
  clientConfig: { url: string; caBundle: string };
  timeoutSeconds: number;
  failurePolicy?: string;
}

describe("Karmada's webhook configurations for the local webhook", () => {
  it("points every webhook at https://127.0.0.1:<port>/<its path>, with the CA and a 10 s timeout, keeping the rest", () => {
    const docs = parseAllDocuments(webhookConfiguration(karmadaYaml, 40123, ca)).map((d) => d.toJS() as { kind: string; webhooks: Hook[] });
    assert.deepEqual(docs.map((d) => d.kind), ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]);
    const hooks = docs.flatMap((d) => d.webhooks);
    assert.deepEqual(hooks.map((h) => h.clientConfig.url), [
      "https://127.0.0.1:40123/mutate-propagationpolicy",
      "https://127.0.0.1:40123/validate-propagationpolicy",
      "https://127.0.0.1:40123/validate-resourceinterpretercustomization",
    ]);
    for (const h of hooks) {
      assert.equal(h.clientConfig.caBundle, ca.toString("base64"), h.name);
      assert.equal(h.timeoutSeconds, 10, h.name);
    }
    assert.equal(hooks[0]?.failurePolicy, "Fail");
  });

  it("refuses a webhook that calls anything but Karmada's webhook Service, and a file with none", () => {
    const other = karmadaYaml.replace("https://karmada-webhook.karmada-system.svc:443/mutate-propagationpolicy", "https://elsewhere.example/mutate");
    assert.throws(() => webhookConfiguration(other, 1, ca), /webhook 0 calls https:\/\/elsewhere\.example\/mutate, not https:\/\/karmada-webhook\.karmada-system\.svc:443\//);
    assert.throws(() => webhookConfiguration("apiVersion: v1\nkind: List\n", 1, ca), /no webhooks found/);
  });
});

describe("flagValue", () => {
  it("reads --name=value, and nothing for a flag not given or a longer name", () => {
    const args = ["--secure-port=8443", "--health-probe-bind-address=127.0.0.1:9000"];
    assert.equal(flagValue(args, "secure-port"), "8443");
    assert.equal(flagValue(args, "health-probe-bind-address"), "127.0.0.1:9000");
    assert.equal(flagValue(args, "port"), undefined);
  });
});
