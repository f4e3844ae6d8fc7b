import assert from "node:assert/strict";
import { request } from "node:https";
import { after, before, describe, it } from "node:test";
import { createCa, issueCertificate } from "../../shared/pki.ts";
import { BadRequestError, callerAllowed, startWebhookServer, type WebhookServer } from "./webhook-server.ts";

/** POSTs (or sends `method`) to the server over TLS, verifying its certificate against the CA; `client`: the certificate to present. */
function call(port: number, caPem: string, path: string, body: string, method = "POST", client?: { certPem: string; keyPem: string }): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const tls = client === undefined ? {} : { cert: client.certPem, key: client.keyPem };
    const req = request({ host: "127.0.0.1", port, path, method, ca: caPem, servername: "localhost", headers: { "content-type": "application/json" }, ...tls }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("the webhook's HTTPS listener", () => {
  let server: WebhookServer;
  let caPem: string;
  const errors: unknown[] = [];
  let release = (): void => undefined;
  const held = new Promise<void>((r) => (release = r));
  let arrived = 0;
  let allArrived = (): void => undefined;
  const sixteen = new Promise<void>((r) => (allArrived = r));
  before(async () => {
    const ca = await createCa("webhook-test-ca");
    caPem = ca.certPem;
    const serving = await issueCertificate(ca, { commonName: "flotilla-hub", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], usage: "server" });
    server = await startWebhookServer({
      listen: "127.0.0.1:0",
      certPem: serving.certPem,
      keyPem: serving.keyPem,
      routes: {
        "/echo": async (body) => ({ got: body }),
        "/bad": async () => {
          throw new BadRequestError("not a review");
        },
        "/slow": async () => {
          if (++arrived === 16) allArrived();
          await held;
          return {};
        },
        "/broken": async () => {
          throw new Error("boom");
        },
      },
      onError: (err) => errors.push(err),
    });
  });
  after(() => server?.close());

  it("answers a JSON POST with the route's JSON, over TLS the CA vouches for", async () => {
    const { status, text } = await call(server.port, caPem, "/echo", JSON.stringify({ a: 1 }));
    assert.equal(status, 200);
    assert.deepEqual(JSON.parse(text), { got: { a: 1 } });
  });
  it("refuses an unknown path, another method, a body that is not JSON and one past the size limit", async () => {
    assert.equal((await call(server.port, caPem, "/nope", "{}")).status, 404);
    assert.equal((await call(server.port, caPem, "/echo", "", "GET")).status, 405);
    assert.equal((await call(server.port, caPem, "/echo", "{not json")).status, 400);
    assert.equal((await call(server.port, caPem, "/echo", `"${"x".repeat(5 * 1024 * 1024)}"`)).status, 413);
  });
  it("answers a route's bad request with 400 and its message, and a failure with 500, logged", async () => {
    assert.deepEqual(await call(server.port, caPem, "/bad", "{}"), { status: 400, text: "not a review\n" });
    assert.equal((await call(server.port, caPem, "/broken", "{}")).status, 500);
    assert.equal((errors[0] as Error).message, "boom");
  });
  it("turns reviews away past 16 at once (429) rather than queue them, and answers again once they are done", async () => {
    const slow = Array.from({ length: 16 }, () => call(server.port, caPem, "/slow", "{}"));
    await sixteen;
    assert.equal((await call(server.port, caPem, "/echo", "{}")).status, 429);
    release();
    assert.deepEqual((await Promise.all(slow)).map((r) => r.status), Array(16).fill(200));
    assert.equal((await call(server.port, caPem, "/echo", "{}")).status, 200);
  });
});

describe("callerAllowed", () => {
  for (const [what, cn, names, want] of [
    ["no names: any certificate the CA signed", "anyone", [], true],
    ["a listed name", "kube-apiserver", ["kube-apiserver", "other"], true],
    ["a name not listed", "admin", ["kube-apiserver"], false],
    ["no common name", undefined, ["kube-apiserver"], false],
  ] as const) {
    it(what, () => assert.equal(callerAllowed(cn, names), want));
  }
});

describe("the webhook's listener with client authentication (issue 37)", () => {
  let server: WebhookServer;
  let caPem: string;
  let apiserver: { certPem: string; keyPem: string };
  let admin: { certPem: string; keyPem: string };
  let stranger: { certPem: string; keyPem: string };
  before(async () => {
    const ca = await createCa("webhook-test-ca");
    const clients = await createCa("apiserver-clients");
    const other = await createCa("someone-else");
    caPem = ca.certPem;
    const serving = await issueCertificate(ca, { commonName: "flotilla-hub", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], usage: "server" });
    apiserver = await issueCertificate(clients, { commonName: "kube-apiserver", usage: "client" });
    admin = await issueCertificate(clients, { commonName: "admin", usage: "client" });
    stranger = await issueCertificate(other, { commonName: "kube-apiserver", usage: "client" });
    server = await startWebhookServer({
      listen: "127.0.0.1:0",
      certPem: serving.certPem,
      keyPem: serving.keyPem,
      routes: { "/echo": async (body) => ({ got: body }) },
      onError: () => undefined,
      clientAuth: { caPem: clients.certPem, names: ["kube-apiserver"] },
    });
  });
  after(() => server?.close());

  it("answers the apiserver's certificate", async () => {
    assert.deepEqual(await call(server.port, caPem, "/echo", "{}", "POST", apiserver), { status: 200, text: '{"got":{}}' });
  });
  it("refuses a caller without a certificate, and one another CA signed, in the TLS handshake", async () => {
    await assert.rejects(call(server.port, caPem, "/echo", "{}"));
    await assert.rejects(call(server.port, caPem, "/echo", "{}", "POST", stranger));
  });
  it("answers 403 to a certificate of that CA with another name", async () => {
    assert.equal((await call(server.port, caPem, "/echo", "{}", "POST", admin)).status, 403);
  });
});
