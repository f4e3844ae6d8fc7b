import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../shared/api/types.ts";
import { type ManifestOutcome, workStatus } from "./work-status.ts";

const service: KubeObject = { apiVersion: "v1", kind: "Service", metadata: { name: "web", namespace: "shop" } };
const live = { ...service, metadata: { ...service.metadata, generation: 1 }, status: { loadBalancer: { ingress: [{ ip: "192.0.2.1" }] } } } as KubeObject;

describe("workStatus", () => {
  const cases: { name: string; outcome: ManifestOutcome; want: number | undefined }[] = [
    { name: "a Service with ready endpoints", outcome: { manifest: service, applied: true, reason: "", message: "", live, readyEndpoints: 3 }, want: 3 },
    { name: "a Service with none", outcome: { manifest: service, applied: true, reason: "", message: "", live, readyEndpoints: 0 }, want: 0 },
    { name: "a Service not counted (slices not listed)", outcome: { manifest: service, applied: true, reason: "", message: "", live }, want: undefined },
  ];
  for (const c of cases) {
    it(`carries readyEndpoints: ${c.name}`, () => {
      const [m] = workStatus("core/v1/Service/shop/web", "h", [c.outcome]).manifests;
      assert.equal(m?.readyEndpoints, c.want);
      assert.equal(m !== undefined && "readyEndpoints" in m, c.want !== undefined, "unset, not 0, when not known");
      assert.deepEqual(JSON.parse(Buffer.from(m?.status ?? []).toString("utf8")), { loadBalancer: { ingress: [{ ip: "192.0.2.1" }] }, generation: 1 });
    });
  }
});
