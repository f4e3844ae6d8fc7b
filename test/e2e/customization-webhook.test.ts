// The apply-time check of ResourceInterpreterCustomizations (issue 21) through a real apiserver:
// the control plane serves the validating webhook on 127.0.0.1 and configures it; kubectl apply
// of a good customization is stored, a bad one refused with the webhook's message: the control
// plane's Lua runtime compiles each script, so a syntax error comes back with its line.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { request } from "node:https";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { karmadaExampleManifest } from "../ric-crds.fixtures.ts";
import { apply, getJson, kubectl, refusal } from "./helpers.ts";

interface WebhookConfigurationJson {
  webhooks: { name: string; failurePolicy: string; clientConfig: { url?: string; caBundle: string }; rules: unknown[] }[];
}

const ric = (name: string, customizations: Record<string, { luaScript: string }>) =>
  JSON.stringify({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "ResourceInterpreterCustomization",
    metadata: { name },
    spec: { target: { apiVersion: "apps/v1", kind: "Deployment" }, customizations },
  });
const DENIED = /admission webhook "resourceinterpretercustomization\.flotilla\.dev" denied the request: /;

/** kubectl apply that must fail: its stderr. */
const refused = (fleet: Fleet, yaml: string): Promise<string> => refusal(apply(fleet.control, yaml));

describe("ResourceInterpreterCustomizations checked at apply time by the control plane's webhook", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;

  before(async () => {
    fleet = await startFleet({ members: 1 });
    flotilla = await startFlotilla(fleet);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("the control plane configures the webhook: its 127.0.0.1 URL, the CA as caBundle, failurePolicy Fail", async () => {
    const cfg = await getJson<WebhookConfigurationJson>(fleet.control, ["validatingwebhookconfiguration", "flotilla-control-plane"]);
    const [hook] = cfg?.webhooks ?? [];
    assert.equal(hook?.name, "resourceinterpretercustomization.flotilla.dev");
    assert.equal(hook?.clientConfig.url, `https://127.0.0.1:${flotilla.webhookPort}/validate-resourceinterpretercustomization`);
    assert.equal(Buffer.from(hook?.clientConfig.caBundle ?? "", "base64").toString(), await readFile(join(flotilla.certsDir, "ca.crt"), "utf8"));
    assert.equal(hook?.failurePolicy, "Fail");
  });

  it("answers only the control cluster's apiserver: without a client certificate the handshake fails, the cluster admin's certificate gets 403", async () => {
    // The apiserver presents its webhook client certificate (test/env: AdmissionConfiguration
    // kubeConfigFile), and the control plane takes only that CA and that name (--webhook-client-ca,
    // --webhook-client-names); every apply in this file goes through it.
    const ca = await readFile(join(flotilla.certsDir, "ca.crt"), "utf8");
    const post = (tls: { cert?: Buffer; key?: Buffer }) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port: flotilla.webhookPort, path: "/validate-resourceinterpretercustomization", method: "POST", ca, timeout: 5_000, ...tls }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("timeout", () => req.destroy(new Error("timeout")));
        req.on("error", reject);
        req.end("{}");
      });
    await assert.rejects(post({}));
    const [cert, key] = await Promise.all(["admin.crt", "admin.key"].map((f) => readFile(join(fleet.control.dir, f))));
    assert.equal(await post({ cert, key }), 403);
  });

  it("stores Karmada's example customization (only its apiVersion changed)", async () => {
    assert.match(await apply(fleet.control, karmadaExampleManifest), /declarative-configuration-example (created|configured)/);
    assert.ok(await getJson(fleet.control, ["ric", "declarative-configuration-example"]));
  });

  it("refuses a script without its operation's function, with the operation and the message, and stores nothing", async () => {
    const stderr = await refused(fleet, ric("misspelt", { healthInterpretation: { luaScript: "function InterpretHealthy(observedObj)\n  return true\nend" } }));
    assert.match(stderr, DENIED);
    assert.match(stderr, /InterpreterOperation\(InterpretHealth\) Lua script error: not found function InterpretHealth/);
    assert.equal(await getJson(fleet.control, ["ric", "misspelt"]), undefined);
  });

  it("refuses a syntax error with the Lua message and its line", async () => {
    const stderr = await refused(fleet, ric("broken", { healthInterpretation: { luaScript: "function InterpretHealth(o)\n  if o then\n  return true\nend" } }));
    assert.match(stderr, DENIED);
    assert.match(stderr, /InterpreterOperation\(InterpretHealth\) Lua script error: luaScript:4: 'end' expected \(to close 'function' at line 1\) near <eof>/);
    assert.equal(await getJson(fleet.control, ["ric", "broken"]), undefined);
  });

  it("refuses a second customization of the target defining an operation the first defines, naming it; other operations and dependencies are accepted", async () => {
    const stderr = await refused(fleet, ric("second-health", { healthInterpretation: { luaScript: "function InterpretHealth(o) return true end" } }));
    assert.match(stderr, DENIED);
    assert.match(stderr, /conflicting with InterpreterOperation\(InterpretHealth\) of existing ResourceInterpreterCustomization\(declarative-configuration-example\)/);
    const merged = ric("more-deps", {
      componentResource: { luaScript: "function GetComponents(o) return {} end" },
      dependencyInterpretation: { luaScript: "function GetDependencies(o) return {} end" },
    });
    assert.match(await apply(fleet.control, merged), /more-deps created/);
  });

  it("refuses an update that breaks a script and keeps the stored one; a label alone is allowed", async () => {
    const stderr = await refused(fleet, ric("more-deps", { componentResource: { luaScript: "return {}" } }));
    assert.match(stderr, /InterpreterOperation\(InterpretComponent\) Lua script error: not found function GetComponents/);
    const kept = await getJson<{ spec: { customizations: { componentResource: { luaScript: string } } } }>(fleet.control, ["ric", "more-deps"]);
    assert.equal(kept?.spec.customizations.componentResource.luaScript, "function GetComponents(o) return {} end");
    await kubectl(fleet.control, ["label", "ric", "more-deps", "team=platform"]);
  });

  it("refuses a script whose top level backtracks inside string.find past the time limit, and the control plane keeps answering", async () => {
    // Issue 37's reproduction: the VM's count hook never runs inside a built-in function, and this
    // one apply held the control plane's event loop for minutes. Its Lua thread is now ended at
    // the hard deadline (1 s limit + 1 s grace), and the webhook answers with the limit.
    const script = [
      'local s = "a"',
      "for i = 1, 14 do s = s .. s end",
      'local p = ""',
      'for i = 1, 20 do p = p .. "a*" end',
      'local found = s:find(p .. "b")',
      "function InterpretHealth(o) return true end",
    ].join("\n");
    // A target no other customization here has, so that only the script can be refused.
    const manifest = JSON.stringify({
      apiVersion: "flotilla.dev/v1alpha1",
      kind: "ResourceInterpreterCustomization",
      metadata: { name: "backtracking" },
      spec: { target: { apiVersion: "example.io/v1", kind: "Widget" }, customizations: { healthInterpretation: { luaScript: script } } },
    });
    const started = Date.now();
    const stderr = await refused(fleet, manifest);
    assert.match(stderr, DENIED);
    assert.match(stderr, /InterpreterOperation\(InterpretHealth\) Lua script error: script exceeded the time limit of 1000 ms/);
    const health = await fetch(`http://127.0.0.1:${flotilla.controlPlaneHealthPort}/healthz`, { signal: AbortSignal.timeout(5_000) });
    assert.equal(health.status, 200);
    assert.ok(Date.now() - started < 15_000, `the refusal and /healthz took ${Date.now() - started} ms`);
    assert.equal(await getJson(fleet.control, ["ric", "backtracking"]), undefined);
  });

  it("refuses a CronFederatedHPA whose schedule does not parse or whose time zone is unknown, and stores a good one", async () => {
    const cron = (name: string, schedule: string, timeZone: string) =>
      JSON.stringify({
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "CronFederatedHPA",
        metadata: { name, namespace: "default" },
        spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, rules: [{ name: "up", schedule, targetReplicas: 3, timeZone }] },
      });
    const stderr = await refused(fleet, cron("bad", "0 8 * * * *", "Mars/Base"));
    assert.match(stderr, /admission webhook "cronfederatedhpa\.flotilla\.dev" denied the request: /);
    assert.match(stderr, /spec\.rules\[0\]\.schedule: Invalid value: "0 8 \* \* \* \*": invalid cron format: want 5 fields/);
    assert.match(stderr, /spec\.rules\[0\]\.timeZone: Invalid value: "Mars\/Base": unknown time zone Mars\/Base/);
    assert.match(await apply(fleet.control, cron("good", "0 8 * * MON-FRI", "Europe/Berlin")), /good created/);
  });

  it("while no control plane answers, creating one is refused (failurePolicy Fail) and deleting one works; once it is back, the create goes through", async () => {
    await flotilla.stopControlPlane();
    const good = ric("while-down", { componentResource: { luaScript: "function GetComponents(o) return {} end" } });
    const stderr = await refused(fleet, good);
    assert.match(stderr, /failed calling webhook "resourceinterpretercustomization\.flotilla\.dev"/);
    // more-deps gives componentResource too: deleted, it no longer conflicts with while-down.
    await kubectl(fleet.control, ["delete", "ric", "more-deps"]);
    await flotilla.startControlPlane();
    assert.match(await apply(fleet.control, good), /while-down created/);
  });
});
