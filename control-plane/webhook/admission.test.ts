import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ResourceInterpreterCustomization } from "../../shared/api/customization.ts";
import type { ScriptChecker } from "../../shared/interpreter/customization-check.ts";
import type { CronFederatedHPA, FederatedHPA } from "../../shared/api/autoscaling.ts";
import { type AdmissionRequest, type AdmissionResponse, requestOf, reviewCronFederatedHPA, reviewCustomization, reviewFederatedHPA, reviewResponse } from "./admission.ts";

const ric = (name: string, health: string, kind = "Deployment"): ResourceInterpreterCustomization => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceInterpreterCustomization",
  metadata: { name },
  spec: { target: { apiVersion: "apps/v1", kind }, customizations: { healthInterpretation: { luaScript: health } } },
});
/** A fake Lua: a script must mention `function <name>`. */
const fake: ScriptChecker = (script, fn) => (script.includes(`function ${fn}`) ? undefined : `function ${fn} is not defined`);
const good = "function InterpretHealth(o) return true end";
const uid = "7f0c";
const denied = (message: string): AdmissionResponse => ({ uid, allowed: false, status: { code: 403, reason: "Forbidden", message } });

describe("reviewCustomization", () => {
  const cases: { name: string; req: AdmissionRequest; stored?: ResourceInterpreterCustomization[]; want: AdmissionResponse }[] = [
    { name: "CREATE of a valid customization is allowed", req: { uid, operation: "CREATE", object: ric("a", good) }, want: { uid, allowed: true } },
    {
      name: "CREATE of a script without its function is refused with the operation and the checker's message",
      req: { uid, operation: "CREATE", object: ric("a", "return true") },
      want: denied("InterpreterOperation(InterpretHealth) Lua script error: function InterpretHealth is not defined"),
    },
    {
      name: "CREATE conflicting with a stored customization of the target is refused, naming it",
      req: { uid, operation: "CREATE", object: ric("b", good) },
      stored: [ric("a", good)],
      want: denied("conflicting with InterpreterOperation(InterpretHealth) of existing ResourceInterpreterCustomization(a)"),
    },
    {
      name: "several problems are joined in one message",
      req: { uid, operation: "CREATE", object: ric("b", "x") },
      stored: [ric("a", good)],
      want: denied("conflicting with InterpreterOperation(InterpretHealth) of existing ResourceInterpreterCustomization(a); InterpreterOperation(InterpretHealth) Lua script error: function InterpretHealth is not defined"),
    },
    { name: "UPDATE of its own stored version is no conflict", req: { uid, operation: "UPDATE", object: ric("a", `${good}\n`), oldObject: ric("a", good) }, stored: [ric("a", good)], want: { uid, allowed: true } },
    {
      name: "UPDATE that breaks the script is refused",
      req: { uid, operation: "UPDATE", object: ric("a", "oops"), oldObject: ric("a", good) },
      want: denied("InterpreterOperation(InterpretHealth) Lua script error: function InterpretHealth is not defined"),
    },
    {
      name: "UPDATE that leaves the spec as it was (a label, a finalizer) is allowed, even of a customization stored unchecked",
      req: { uid, operation: "UPDATE", object: { ...ric("b", "oops"), metadata: { name: "b", labels: { team: "x" } } }, oldObject: ric("b", "oops") },
      stored: [ric("a", "oops"), ric("b", "oops")],
      want: { uid, allowed: true },
    },
    { name: "DELETE is allowed (the configuration does not ask for it)", req: { uid, operation: "DELETE", oldObject: ric("a", "oops") }, want: { uid, allowed: true } },
    { name: "the request's name stands in for an object without one (generateName)", req: { uid, operation: "CREATE", name: "a", object: { ...ric("a", good), metadata: {} } }, stored: [ric("a", good)], want: { uid, allowed: true } },
    { name: "CREATE without an object is a bad request", req: { uid, operation: "CREATE" }, want: { uid, allowed: false, status: { code: 400, reason: "BadRequest", message: "CREATE of a ResourceInterpreterCustomization without an object" } } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(reviewCustomization(c.req, c.stored ?? [], fake), c.want));
});

const fhpa = (maxReplicas: number): FederatedHPA => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "FederatedHPA",
  metadata: { name: "web", namespace: "default" },
  spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, minReplicas: 2, maxReplicas },
});
const cronFhpa = (schedule: string, timeZone?: string): CronFederatedHPA => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "CronFederatedHPA",
  metadata: { name: "web", namespace: "default" },
  spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, rules: [{ name: "up", schedule, targetReplicas: 5, ...(timeZone === undefined ? {} : { timeZone }) }] },
});

describe("reviewFederatedHPA and reviewCronFederatedHPA", () => {
  it("allow a valid FederatedHPA", () => assert.deepEqual(reviewFederatedHPA({ uid, operation: "CREATE", object: fhpa(5) }), { uid, allowed: true }));
  it("refuse maxReplicas below minReplicas, naming the field", () => {
    assert.deepEqual(reviewFederatedHPA({ uid, operation: "CREATE", object: fhpa(1) }), denied("spec.maxReplicas: Invalid value: 1: must be greater than or equal to `minReplicas`"));
  });
  it("allow a valid CronFederatedHPA", () => assert.deepEqual(reviewCronFederatedHPA({ uid, operation: "CREATE", object: cronFhpa("0 8 * * 1-5", "Europe/Berlin") }), { uid, allowed: true }));
  it("refuse a schedule that does not parse and an unknown zone in one message", () => {
    assert.deepEqual(
      reviewCronFederatedHPA({ uid, operation: "UPDATE", object: cronFhpa("0 8 * *", "Moon/Base"), oldObject: cronFhpa("0 8 * * *") }),
      denied('spec.rules[0].schedule: Invalid value: "0 8 * *": invalid cron format: want 5 fields (minute hour day-of-month month day-of-week), got 4; spec.rules[0].timeZone: Invalid value: "Moon/Base": unknown time zone Moon/Base'),
    );
  });
  it("allow an UPDATE that keeps the spec, even of an object stored unchecked", () => {
    const bad = cronFhpa("never");
    assert.deepEqual(reviewCronFederatedHPA({ uid, operation: "UPDATE", object: { ...bad, metadata: { ...bad.metadata, labels: { a: "b" } } }, oldObject: bad }), { uid, allowed: true });
  });
  it("answer a CREATE without an object as a bad request", () => {
    assert.deepEqual(reviewFederatedHPA({ uid, operation: "CREATE" }), { uid, allowed: false, status: { code: 400, reason: "BadRequest", message: "CREATE of a FederatedHPA without an object" } });
  });
  it("allow DELETE", () => assert.deepEqual(reviewCronFederatedHPA({ uid, operation: "DELETE", oldObject: cronFhpa("never") }), { uid, allowed: true }));
});

describe("requestOf and reviewResponse: the AdmissionReview envelope", () => {
  it("takes the request of an admission.k8s.io/v1 review and answers in one", () => {
    const req = { uid, operation: "CREATE", object: {} };
    assert.deepEqual(requestOf({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: req }), req);
    assert.deepEqual(reviewResponse({ uid, allowed: true }), { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid, allowed: true } });
  });
  const bad: [string, unknown][] = [
    ["a v1beta1 review", { apiVersion: "admission.k8s.io/v1beta1", kind: "AdmissionReview", request: { uid, operation: "CREATE" } }],
    ["another kind", { apiVersion: "admission.k8s.io/v1", kind: "Status" }],
    ["a review without request", { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" }],
    ["a request without uid", { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { operation: "CREATE" } }],
    ["null", null],
  ];
  for (const [what, body] of bad) it(`refuses ${what}`, () => assert.ok(requestOf(body) instanceof Error));
});
