import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import { KubeError, type KubeRest } from "../../shared/kube-rest.ts";
import { silentLogger } from "../../shared/logger.ts";
import { EndpointSliceIndex } from "./endpoint-slices.ts";

describe("EndpointSliceIndex", () => {
  it("reports nothing (not 0) for a Service when the agent may not list EndpointSlices", async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({ clusters: [{ name: "c", server: "https://127.0.0.1:9" }], users: [{ name: "u" }], contexts: [{ name: "x", cluster: "c", user: "u" }], currentContext: "x" });
    const asked: unknown[] = [];
    const rest = {
      get: (path: string, query: unknown) => {
        asked.push([path, query]);
        return Promise.reject(new KubeError(403, "Forbidden", "endpointslices.discovery.k8s.io is forbidden"));
      },
    } as unknown as KubeRest;
    const index = new EndpointSliceIndex({ kc, rest, log: silentLogger(), onChange: () => assert.fail("no change without slices") });
    await index.synced(); // resolves: the Service's Work still reports, without the count
    assert.equal(index.readyEndpoints("shop", "web"), undefined);
    assert.deepEqual(asked, [["/apis/discovery.k8s.io/v1/endpointslices", { labelSelector: "flotilla.dev/work,kubernetes.io/service-name" }]]);
    index.stop();
  });
});
