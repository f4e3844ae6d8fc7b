import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import { Informer } from "./informer.ts";
import { KubeError, type KubeRest } from "./kube-rest.ts";
import { silentLogger } from "./logger.ts";

describe("Informer", () => {
  it("stays unsynced when its list is refused: an empty cache is not the truth", async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({ clusters: [{ name: "c", server: "https://127.0.0.1:9" }], users: [{ name: "u" }], contexts: [{ name: "x", cluster: "c", user: "u" }], currentContext: "x" });
    let lists = 0;
    const rest = {
      get: () => {
        lists++;
        return Promise.reject(new KubeError(403, "Forbidden", "endpointslices is forbidden"));
      },
    } as unknown as KubeRest;
    const inf = new Informer({ kc, rest, resource: { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", plural: "endpointslices", namespaced: true }, log: silentLogger() });
    await inf.start(); // resolves: the caller keeps serving, the informer retries
    assert.equal(lists, 1);
    assert.equal(inf.synced, false);
    assert.deepEqual(inf.list(), []);
    inf.stop();
  });
});
