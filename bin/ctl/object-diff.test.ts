import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { unifiedDiff } from "./object-diff.ts";

const deploy = (replicas: number, image = "nginx:1.25") => ({ apiVersion: "apps/v1", kind: "Deployment", metadata: { namespace: "demo", name: "web" }, spec: { replicas, template: { spec: { containers: [{ name: "c", image }] } } } });

describe("unifiedDiff", () => {
  it("prints nothing when live and rendered agree", () => assert.equal(unifiedDiff([{ rendered: deploy(2), live: deploy(2) }]), ""));
  it("shows a changed field as - live + rendered, named by kind/namespace/name", () => {
    const d = unifiedDiff([{ rendered: deploy(2, "nginx:1.26"), live: deploy(3) }]);
    assert.match(d, /^--- live\/Deployment\/demo\/web/m);
    assert.match(d, /^\+\+\+ rendered\/Deployment\/demo\/web/m);
    assert.match(d, /^- {2}replicas: 3$/m);
    assert.match(d, /^\+ {2}replicas: 2$/m);
    assert.match(d, /^-\s+image: nginx:1\.25$/m);
    assert.match(d, /^\+\s+image: nginx:1\.26$/m);
  });
  it("shows an object missing in the member as all added", () => {
    const d = unifiedDiff([{ rendered: deploy(1), live: undefined }]);
    assert.match(d, /^--- \/dev\/null/m);
    assert.match(d, /^\+kind: Deployment$/m);
  });
  it("lists only the objects that differ", () => {
    const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { a: "1" } };
    const d = unifiedDiff([{ rendered: cm, live: cm }, { rendered: deploy(2), live: deploy(1) }]);
    assert.ok(!d.includes("ConfigMap/c"));
    assert.match(d, /Deployment\/demo\/web/);
  });
});
