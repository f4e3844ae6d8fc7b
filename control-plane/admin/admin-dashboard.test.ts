import assert from "node:assert/strict";
import { it } from "node:test";
import { status as GrpcStatus } from "@grpc/grpc-js";
import { RpcError } from "../rpc.ts";
import { dashboardLogin } from "./admin-dashboard.ts";

const viewerCert = { subject: { CN: "vera", O: "flotilla:viewers" }, fingerprint256: "AA:BB", serialNumber: "0A" };

it("a dashboard login carries the calling certificate's user, role, fingerprint and serial", () => {
  let asked: unknown;
  const res = dashboardLogin((who) => ((asked = who), { url: "https://d/login?token=t", expiresAt: new Date("2026-11-24T10:02:00Z") }), viewerCert);
  assert.deepEqual(asked, { user: "vera", role: "viewer", fingerprint256: "AA:BB", serialNumber: "0A" });
  assert.deepEqual(res, { url: "https://d/login?token=t", expiresAt: "2026-11-24T10:02:00.000Z" });
});

it("without a dashboard, or for a certificate that is no admin's or viewer's, there is no link", () => {
  const refused = (fn: () => unknown, code: GrpcStatus, message: RegExp) =>
    assert.throws(fn, (err: unknown) => err instanceof RpcError && err.code === code && message.test(err.message));
  refused(() => dashboardLogin(undefined, viewerCert), GrpcStatus.FAILED_PRECONDITION, /--dashboard-address/);
  refused(() => dashboardLogin(() => ({ url: "u", expiresAt: new Date() }), { subject: { CN: "member1", O: "flotilla:agents" } }), GrpcStatus.PERMISSION_DENIED, /admin or viewer/);
});
