import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import { WORK_KEY_ANNOTATION } from "../../shared/work-key.ts";
import { workOfService, worksOfPod } from "./member-events.ts";

const deploy = (name: string, key: string | undefined, app: string): KubeObject =>
  ({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name, namespace: "n", ...(key !== undefined ? { annotations: { [WORK_KEY_ANNOTATION]: key } } : {}) }, spec: { selector: { matchLabels: { app } } } }) as KubeObject;

describe("workOfService", () => {
  const objects = { cachedWorkKey: (_v: string, _k: string, ns: string | undefined, name: string) => (ns === "n" && name === "web" ? "v1/Service/n/web" : undefined) };
  it("the Work that applied the Service", () => assert.deepEqual(workOfService(objects, "n", "web"), ["v1/Service/n/web"]));
  it("none for a Service the watch does not hold", () => assert.deepEqual(workOfService(objects, "n", "other"), []));
});

describe("worksOfPod", () => {
  const cached = [deploy("web", "apps/v1/Deployment/n/web", "web"), deploy("db", "apps/v1/Deployment/n/db", "db"), deploy("unmarked", undefined, "web")];
  const objects = { cachedIn: (apiVersion: string, kind: string, ns: string) => (apiVersion === "apps/v1" && kind === "Deployment" && ns === "n" ? cached : []) };
  it("the Works whose workloads select the pod", () => assert.deepEqual(worksOfPod(objects, "n", { app: "web" }), ["apps/v1/Deployment/n/web"]));
  it("none in another namespace, or for a pod without labels", () => {
    assert.deepEqual(worksOfPod(objects, "m", { app: "web" }), []);
    assert.deepEqual(worksOfPod(objects, "n", undefined), []);
  });
});
