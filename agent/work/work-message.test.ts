import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { WorkUpsert } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { receivedWork } from "./work-message.ts";

const upsert = (manifests: string[], extra: Partial<WorkUpsert> = {}): WorkUpsert =>
  ({ workKey: "apps/v1/Deployment/n/web", contentHash: "h1", manifests: manifests.map((m) => Buffer.from(m)), conflictResolution: "", preserveResourcesOnDeletion: false, ...extra }) as WorkUpsert;
const cm = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "n" } });

describe("receivedWork", () => {
  it("parses the manifests; an empty conflictResolution is Abort", () => {
    assert.deepEqual(receivedWork(upsert([cm])), { work: { key: "apps/v1/Deployment/n/web", hash: "h1", manifests: [JSON.parse(cm)], conflictResolution: "Abort", preserve: false } });
  });
  it("keeps the binding's conflictResolution and preserveResourcesOnDeletion", () => {
    const got = receivedWork(upsert([cm], { conflictResolution: "Overwrite", preserveResourcesOnDeletion: true }));
    assert.ok("work" in got);
    assert.equal(got.work.conflictResolution, "Overwrite");
    assert.equal(got.work.preserve, true);
  });
  it("a manifest that is not JSON is a problem, not a Work", () => {
    const got = receivedWork(upsert([cm, "{not json"]));
    assert.ok("problem" in got);
    assert.equal(got.problem, "the hub sent a manifest that is not valid JSON");
    assert.equal(got.logged, "the hub sent a manifest that is not JSON; ignoring the work");
    assert.match(got.err ?? "", /JSON/);
  });
  it("no manifests at all is a problem", () => {
    const got = receivedWork(upsert([]));
    assert.ok("problem" in got && got.problem.length > 0);
  });
});
