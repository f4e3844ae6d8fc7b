import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { status as GrpcStatus } from "@grpc/grpc-js";
import { dryRunAnswer } from "./admin-plan.ts";
import { RpcError } from "../rpc.ts";

describe("dryRunAnswer", () => {
  const cases: { name: string; status: number; namespace?: string; want: { note: RegExp } | { code: GrpcStatus; message: RegExp } | undefined }[] = [
    { name: "a namespace that does not exist yet: planned as given, with a note", status: 404, namespace: "new", want: { note: /^Deployment new\/web not checked by the control cluster: namespace "new" does not exist there yet$/ } },
    { name: "not found for a cluster-scoped object is the object's fault", status: 404, want: { code: GrpcStatus.INVALID_ARGUMENT, message: /would refuse Deployment new\/web: boom/ } },
    { name: "schema or CEL refusal", status: 422, namespace: "a", want: { code: GrpcStatus.INVALID_ARGUMENT, message: /^the control cluster would refuse Deployment new\/web: boom$/ } },
    { name: "a bad request", status: 400, namespace: "a", want: { code: GrpcStatus.INVALID_ARGUMENT, message: /would refuse/ } },
    { name: "the control plane's own RBAC", status: 403, namespace: "a", want: { code: GrpcStatus.FAILED_PRECONDITION, message: /may not check Deployment new\/web in the control cluster \(its RBAC\): boom/ } },
    { name: "its credentials", status: 401, namespace: "a", want: { code: GrpcStatus.FAILED_PRECONDITION, message: /its RBAC/ } },
    { name: "changed meanwhile", status: 409, namespace: "a", want: { code: GrpcStatus.ABORTED, message: /changed in the control cluster while planning; plan again/ } },
    { name: "a server failure is not about the object", status: 500, namespace: "a", want: undefined },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = dryRunAnswer(c.status, "boom", "Deployment new/web", c.namespace);
      if (c.want === undefined) return assert.equal(got, undefined);
      if ("note" in c.want) return assert.match((got as { note: string }).note, c.want.note);
      assert.ok(got instanceof RpcError);
      assert.equal(got.code, c.want.code);
      assert.match(got.message, c.want.message);
    });
  }
});
