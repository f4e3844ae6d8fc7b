import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AppliedRecord, AppliedResource } from "./applied-record.ts";
import { decidePrune, type ManifestResult, recordAgain } from "./prune-decision.ts";

const deploy: AppliedResource = { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "web" };
const cm: AppliedResource = { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "web-config" };
const svc: AppliedResource = { apiVersion: "v1", kind: "Service", namespace: "default", name: "web" };
const applied = (resource: AppliedResource): ManifestResult => ({ resource, applied: true, leftAlone: false });
const failed = (resource: AppliedResource): ManifestResult => ({ resource, applied: false, leftAlone: false });
const leftAlone = (resource: AppliedResource): ManifestResult => ({ resource, applied: false, leftAlone: true });

describe("decidePrune", () => {
  const cases: { name: string; previous: AppliedResource[]; results: ManifestResult[]; prune: AppliedResource[]; record: AppliedResource[] | undefined }[] = [
    { name: "first apply: nothing to prune, the version is recorded", previous: [], results: [applied(deploy)], prune: [], record: [deploy] },
    { name: "the only manifest refused (422 from a bad override): nothing pruned, old record kept", previous: [deploy], results: [failed(deploy)], prune: [], record: undefined },
    { name: "a refused manifest beside an applied one: nothing pruned, old record kept", previous: [deploy, cm], results: [applied(cm), failed(deploy)], prune: [], record: undefined },
    { name: "a dropped manifest while another manifest fails: the dropped one waits", previous: [deploy, cm], results: [failed(deploy)], prune: [], record: undefined },
    { name: "a dropped manifest once the new version applied: pruned", previous: [deploy, cm], results: [applied(deploy)], prune: [cm], record: [deploy] },
    { name: "an object now someone else's: neither pruned nor claimed", previous: [deploy, svc], results: [applied(deploy), leftAlone(svc)], prune: [], record: [deploy] },
    { name: "a new manifest alongside the old ones: nothing pruned", previous: [deploy], results: [applied(deploy), applied(svc)], prune: [], record: [deploy, svc] },
    { name: "same name in another namespace is another object", previous: [cm], results: [applied({ ...cm, namespace: "other" })], prune: [cm], record: [{ ...cm, namespace: "other" }] },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(decidePrune(c.previous, c.results), { prune: c.prune, record: c.record }));
  }
});

describe("recordAgain (the same version applied again)", () => {
  const rec = (extra: Partial<AppliedRecord> = {}): AppliedRecord => ({ key: "k", hash: "h", resources: [deploy], ...extra });
  const cases: { name: string; record: AppliedRecord; applied: AppliedResource[]; skipped: boolean; preserve: boolean; registration?: string; want: AppliedRecord | undefined }[] = [
    { name: "nothing changed: no write", record: rec({ whole: true }), applied: [deploy], skipped: false, preserve: false, want: undefined },
    { name: "applied in full now: whole, with what it applied", record: rec(), applied: [deploy, cm], skipped: false, preserve: false, want: rec({ resources: [deploy, cm], whole: true }) },
    { name: "still a skipped manifest: not whole", record: rec(), applied: [deploy], skipped: true, preserve: false, want: undefined },
    { name: "preserveResourcesOnDeletion turned on: recorded", record: rec({ whole: true }), applied: [deploy], skipped: false, preserve: true, want: rec({ whole: true, preserve: true }) },
    { name: "preserveResourcesOnDeletion turned off: dropped from the record", record: rec({ whole: true, preserve: true }), applied: [deploy], skipped: false, preserve: false, want: rec({ whole: true }) },
    { name: "whole and preserve at once", record: rec(), applied: [deploy], skipped: false, preserve: true, want: rec({ whole: true, preserve: true }) },
    // Only the object applied may be deleted later (deletion-judge.ts): the record follows its uid.
    { name: "an object applied again under a new uid (deleted by hand, made again): the uid recorded", record: rec({ whole: true, resources: [{ ...deploy, uid: "u1" }] }), applied: [{ ...deploy, uid: "u2" }], skipped: false, preserve: false, want: rec({ whole: true, resources: [{ ...deploy, uid: "u2" }] }) },
    { name: "a record of an older agent takes the uid at the next apply", record: rec({ whole: true }), applied: [{ ...deploy, uid: "u1" }], skipped: false, preserve: false, want: rec({ whole: true, resources: [{ ...deploy, uid: "u1" }] }) },
    { name: "the same uid: no write", record: rec({ whole: true, resources: [{ ...deploy, uid: "u1" }] }), applied: [{ ...deploy, uid: "u1" }], skipped: false, preserve: false, want: undefined },
    { name: "given under another registration of the cluster (it registered again): the registration recorded", record: rec({ whole: true, registration: "r1" }), applied: [deploy], skipped: false, preserve: false, registration: "r2", want: rec({ whole: true, registration: "r2" }) },
    { name: "a new uid and a new registration at once: both recorded", record: rec({ whole: true, registration: "r1", resources: [{ ...deploy, uid: "u1" }] }), applied: [{ ...deploy, uid: "u2" }], skipped: false, preserve: false, registration: "r2", want: rec({ whole: true, registration: "r2", resources: [{ ...deploy, uid: "u2" }] }) },
    { name: "the same registration: no write", record: rec({ whole: true, registration: "r1" }), applied: [deploy], skipped: false, preserve: false, registration: "r1", want: undefined },
    { name: "a manifest not applied this time (no uid given): its recorded uid stays", record: rec({ resources: [{ ...deploy, uid: "u1" }] }), applied: [deploy], skipped: true, preserve: false, want: undefined },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(recordAgain(c.record, c.applied, c.skipped, c.preserve, c.registration), c.want));
});
