import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createCa, issueCertificate } from "../../shared/pki.ts";
import { certificateNames, endpointHost, validatingWebhookConfiguration, type WebhookEndpoint, webhookEndpoint } from "./webhook-configuration.ts";

describe("webhookEndpoint: where the apiserver calls the webhook, from the flags", () => {
  const cases: { name: string; flags: { listen: string; url?: string; service?: string }; boundPort?: number; want: WebhookEndpoint | RegExp }[] = [
    { name: "the listen address itself", flags: { listen: "127.0.0.1:9445" }, want: { url: "https://127.0.0.1:9445" } },
    { name: "the bound port for a listen port 0", flags: { listen: "127.0.0.1:0" }, boundPort: 41234, want: { url: "https://127.0.0.1:41234" } },
    { name: "an IPv6 listen address, bracketed", flags: { listen: "[::1]:9445" }, want: { url: "https://[::1]:9445" } },
    { name: "a wildcard listen address is refused without url or service", flags: { listen: "0.0.0.0:9445" }, want: /no address the apiserver can call/ },
    { name: "an IPv6 wildcard too", flags: { listen: "[::]:9445" }, want: /no address the apiserver can call/ },
    { name: "--webhook-url wins over the listen address", flags: { listen: "0.0.0.0:9445", url: "https://flotilla.example.com:8443/" }, want: { url: "https://flotilla.example.com:8443" } },
    { name: "--webhook-url over plain http is refused", flags: { listen: "0.0.0.0:9445", url: "http://x:1" }, want: /want https/ },
    { name: "--webhook-url with a path is refused", flags: { listen: "0.0.0.0:9445", url: "https://x:1/hook" }, want: /without a path/ },
    { name: "--webhook-service with a port", flags: { listen: "0.0.0.0:9445", service: "flotilla-system/flotilla-control-plane:9445" }, want: { service: { namespace: "flotilla-system", name: "flotilla-control-plane", port: 9445 } } },
    { name: "--webhook-service without a port is 443", flags: { listen: "0.0.0.0:9445", service: "ns/svc" }, want: { service: { namespace: "ns", name: "svc", port: 443 } } },
    { name: "--webhook-service without a namespace is refused", flags: { listen: "0.0.0.0:9445", service: "svc" }, want: /want namespace\/name/ },
    { name: "url and service together are refused", flags: { listen: "0.0.0.0:9445", url: "https://x", service: "ns/svc" }, want: /not both/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = webhookEndpoint(c.flags, c.boundPort);
      if (c.want instanceof RegExp) assert.match(got instanceof Error ? got.message : "(accepted)", c.want);
      else assert.deepEqual(got, c.want);
    });
  }
});

describe("validatingWebhookConfiguration", () => {
  const ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  it("sends CREATE and UPDATE of customizations to the URL's path, trusting the CA, failing closed", () => {
    const cfg = validatingWebhookConfiguration({ url: "https://127.0.0.1:9445" }, ca);
    const [hook] = cfg.webhooks as Record<string, unknown>[];
    assert.deepEqual(hook?.clientConfig, { url: "https://127.0.0.1:9445/validate-resourceinterpretercustomization", caBundle: Buffer.from(ca).toString("base64") });
    assert.deepEqual(hook?.rules, [{ operations: ["CREATE", "UPDATE"], apiGroups: ["flotilla.dev"], apiVersions: ["*"], resources: ["resourceinterpretercustomizations"], scope: "Cluster" }]);
    assert.equal(hook?.failurePolicy, "Fail");
    assert.equal(hook?.sideEffects, "None");
  });
  it("sends CREATE and UPDATE of federatedhpas, cronfederatedhpas, federatedresourcequotas and (quota-webhooks.test.ts) templates to their own paths, as Karmada's webhook names them", () => {
    const cfg = validatingWebhookConfiguration({ url: "https://127.0.0.1:9445" }, ca);
    const hooks = cfg.webhooks as { name: string; rules: { resources: string[]; scope: string }[]; clientConfig: { url: string }; failurePolicy: string }[];
    assert.deepEqual(
      hooks.map((h) => [h.name, h.rules[0]?.resources, h.rules[0]?.scope, h.clientConfig.url, h.failurePolicy]),
      [
        ["resourceinterpretercustomization.flotilla.dev", ["resourceinterpretercustomizations"], "Cluster", "https://127.0.0.1:9445/validate-resourceinterpretercustomization", "Fail"],
        ["federatedhpa.flotilla.dev", ["federatedhpas"], "Namespaced", "https://127.0.0.1:9445/validate-federatedhpa", "Fail"],
        ["cronfederatedhpa.flotilla.dev", ["cronfederatedhpas"], "Namespaced", "https://127.0.0.1:9445/validate-cronfederatedhpa", "Fail"],
        ["federatedresourcequota.flotilla.dev", ["federatedresourcequotas"], "Namespaced", "https://127.0.0.1:9445/validate-federatedresourcequota", "Fail"],
        ["resourcetemplate-quota.flotilla.dev", ["deployments", "deployments/scale", "statefulsets", "statefulsets/scale", "replicasets", "replicasets/scale"], "Namespaced", "https://127.0.0.1:9445/validate-resourcetemplate-quota", "Fail"],
      ],
    );
  });
  it("names a Service with its port and the path", () => {
    const cfg = validatingWebhookConfiguration({ service: { namespace: "flotilla-system", name: "flotilla-control-plane", port: 443 } }, ca);
    const [hook] = cfg.webhooks as { clientConfig: unknown }[];
    assert.deepEqual(hook?.clientConfig, { service: { namespace: "flotilla-system", name: "flotilla-control-plane", port: 443, path: "/validate-resourceinterpretercustomization" }, caBundle: Buffer.from(ca).toString("base64") });
  });
});

describe("endpointHost and certificateNames: the name the apiserver checks the webhook's certificate against", () => {
  it("a Service's <name>.<namespace>.svc, a URL's host (an IPv6 one without brackets)", () => {
    assert.equal(endpointHost({ service: { namespace: "flotilla-system", name: "flotilla-control-plane-webhook", port: 443 } }), "flotilla-control-plane-webhook.flotilla-system.svc");
    assert.equal(endpointHost({ url: "https://127.0.0.1:9445" }), "127.0.0.1");
    assert.equal(endpointHost({ url: "https://[::1]:9445" }), "::1");
    assert.equal(endpointHost({ url: "https://hooks.example.com" }), "hooks.example.com");
  });
  it("a certificate names its DNS names and IP addresses, and no other host", async () => {
    const ca = await createCa("names-ca");
    const hub = await issueCertificate(ca, { commonName: "hub", dnsNames: ["flotilla-control-plane.flotilla-system.svc"], ipAddresses: ["127.0.0.1"], usage: "server" });
    assert.equal(certificateNames(hub.certPem, "flotilla-control-plane.flotilla-system.svc"), true);
    assert.equal(certificateNames(hub.certPem, "127.0.0.1"), true);
    assert.equal(certificateNames(hub.certPem, "flotilla-control-plane-webhook.flotilla-system.svc"), false);
    assert.equal(certificateNames(hub.certPem, "10.0.0.1"), false);
  });
});
