// shutdownServer over real gRPC with TLS on loopback: calls in flight finish within the grace
// period, and a call that never ends is cancelled instead of holding the shutdown up.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Client, credentials, Server, ServerCredentials, type ServiceDefinition, type ServiceError } from "@grpc/grpc-js";
import { createCa, issueCertificate } from "../shared/pki.ts";
import { shutdownServer } from "./rpc.ts";

const bytes = { serialize: (b: Buffer) => b, deserialize: (b: Buffer) => b };
const service: ServiceDefinition = {
  echo: { path: "/test.Slow/Echo", requestStream: false, responseStream: false, requestSerialize: bytes.serialize, requestDeserialize: bytes.deserialize, responseSerialize: bytes.serialize, responseDeserialize: bytes.deserialize },
};

/** A TLS server whose Echo answers after the number of ms in the request, or never for "never". */
async function slowServer(): Promise<{ server: Server; call(body: string): Promise<string>; received: Promise<void>; close(): void }> {
  const ca = await createCa("rpc-test-ca");
  const serving = await issueCertificate(ca, { commonName: "localhost", dnsNames: ["localhost"], usage: "server" });
  const server = new Server();
  // Resolved once a call reached the handler: a fixed sleep races the TLS handshake on a busy machine.
  let arrived = () => {};
  const received = new Promise<void>((r) => (arrived = r));
  server.addService(service, {
    echo: (call: { request: Buffer }, cb: (err: null, res: Buffer) => void) => {
      arrived();
      const body = call.request.toString();
      if (body !== "never") setTimeout(() => cb(null, Buffer.from(`done ${body}`)), Number(body));
    },
  });
  const creds = ServerCredentials.createSsl(Buffer.from(ca.certPem), [{ cert_chain: Buffer.from(serving.certPem), private_key: Buffer.from(serving.keyPem) }], false);
  const port = await new Promise<number>((resolve, reject) => server.bindAsync("127.0.0.1:0", creds, (e, p) => (e ? reject(e) : resolve(p))));
  const client = new Client(`127.0.0.1:${port}`, credentials.createSsl(Buffer.from(ca.certPem)), { "grpc.ssl_target_name_override": "localhost" });
  return {
    server,
    call: (body) =>
      new Promise((resolve, reject) => {
        client.makeUnaryRequest("/test.Slow/Echo", bytes.serialize, bytes.deserialize, Buffer.from(body), (err: ServiceError | null, res?: Buffer) => (err ? reject(err) : resolve(String(res))));
      }),
    received,
    close: () => client.close(),
  };
}

describe("shutdownServer", () => {
  it("lets a call in flight finish within the grace period", async () => {
    const s = await slowServer();
    try {
      const answer = s.call("200");
      await s.received;
      await shutdownServer(s.server, 5_000);
      assert.equal(await answer, "done 200");
    } finally {
      s.close();
    }
  });

  it("cancels a call that never ends once the grace period is over", async () => {
    const s = await slowServer();
    try {
      const answer = s.call("never");
      const failed = answer.then(
        () => assert.fail("a call that never answers cannot succeed"),
        (err: ServiceError) => err,
      );
      await s.received;
      const started = process.hrtime.bigint();
      await shutdownServer(s.server, 300);
      const tookMs = Number(process.hrtime.bigint() - started) / 1e6;
      assert.ok(tookMs >= 250, `waited for the grace period (${tookMs} ms)`);
      const err = await failed;
      assert.ok(typeof err.code === "number" && err.code !== 0, `the caller sees the call end: ${err.message}`);
    } finally {
      s.close();
    }
  });
});
