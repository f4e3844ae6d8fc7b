// The admission decisions (pure): an AdmissionReview request (and, for ResourceInterpreter-
// Customizations, the stored customizations and the script checker) in, the response out.
import { isDeepStrictEqual } from "node:util";
import type { CronFederatedHPA, FederatedHPA } from "../../shared/api/autoscaling.ts";
import type { ResourceInterpreterCustomization } from "../../shared/api/customization.ts";
import { validateCronFederatedHPA, validateFederatedHPA } from "../../shared/autoscaling/validation.ts";
import { type ScriptChecker, validateCustomization } from "../../shared/interpreter/customization-check.ts";

/** The parts of admission.k8s.io/v1 AdmissionReview the webhook reads and writes. */
export interface AdmissionReview {
  apiVersion: string;
  kind: string;
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

export interface AdmissionRequest {
  uid: string;
  operation: string;
  name?: string;
  namespace?: string;
  /** The resource asked for (`deployments`), and its subresource (`scale`) if any. */
  resource?: { group: string; version: string; resource: string };
  subResource?: string;
  object?: unknown;
  oldObject?: unknown;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  /** On a refusal: the apiserver tells the user `admission webhook "<name>" denied the request: <message>`. */
  status?: { code: number; reason: string; message: string };
}

const REVIEW_VERSION = "admission.k8s.io/v1";

/** The review's request, or why the body is not one this webhook can answer. */
export function requestOf(body: unknown): AdmissionRequest | Error {
  const review = body as Partial<AdmissionReview> | null;
  if (typeof review !== "object" || review === null || review.kind !== "AdmissionReview" || review.apiVersion !== REVIEW_VERSION) {
    return new Error(`not an ${REVIEW_VERSION} AdmissionReview`);
  }
  const req = review.request;
  if (typeof req !== "object" || req === null || typeof req.uid !== "string" || typeof req.operation !== "string") return new Error("the AdmissionReview has no request with a uid and an operation");
  return req;
}

/** Wraps a response in the AdmissionReview the apiserver expects back. */
export function reviewResponse(response: AdmissionResponse): AdmissionReview {
  return { apiVersion: REVIEW_VERSION, kind: "AdmissionReview", response };
}

/** A refusal with Karmada's code and reason (controller-runtime's admission.Denied). */
export function denied(uid: string, message: string, code = 403): AdmissionResponse {
  return { uid, allowed: false, status: { code, reason: code === 403 ? "Forbidden" : "BadRequest", message } };
}

/**
 * Allows or refuses a CREATE or UPDATE of a `kind` with `validate`'s problems (joined in one
 * message). An UPDATE that leaves the spec as it was (a label, an annotation, a finalizer) is
 * allowed unchecked: nothing the check reads changed, and an object stored before the check (or
 * under an older one) must stay editable and deletable. Any other operation is allowed (the
 * configuration asks for none).
 */
export function reviewSpec<T extends { spec?: unknown }>(req: AdmissionRequest, kind: string, validate: (obj: T) => string[]): AdmissionResponse {
  if (req.operation !== "CREATE" && req.operation !== "UPDATE") return { uid: req.uid, allowed: true };
  const obj = req.object as T | undefined;
  if (typeof obj !== "object" || obj === null) return denied(req.uid, `${req.operation} of a ${kind} without an object`, 400);
  if (req.operation === "UPDATE" && isDeepStrictEqual((req.oldObject as Partial<T> | undefined)?.spec, obj.spec)) {
    return { uid: req.uid, allowed: true };
  }
  const problems = validate(obj);
  return problems.length === 0 ? { uid: req.uid, allowed: true } : denied(req.uid, problems.join("; "));
}

/** A customization's review: its scripts, and no conflict with the stored customizations. */
export function reviewCustomization(req: AdmissionRequest, stored: readonly ResourceInterpreterCustomization[], checkScript: ScriptChecker): AdmissionResponse {
  return reviewSpec<ResourceInterpreterCustomization>(req, "ResourceInterpreterCustomization", (obj) =>
    validateCustomization({ ...obj, metadata: { ...obj.metadata, name: obj.metadata?.name ?? req.name } }, checkScript, stored),
  );
}

/** A FederatedHPA's review (shared/autoscaling/validation.ts). */
export const reviewFederatedHPA = (req: AdmissionRequest): AdmissionResponse => reviewSpec<FederatedHPA>(req, "FederatedHPA", validateFederatedHPA);

/** A CronFederatedHPA's review: schedules, time zones, rule names, the replicas each rule sets. */
export const reviewCronFederatedHPA = (req: AdmissionRequest): AdmissionResponse => reviewSpec<CronFederatedHPA>(req, "CronFederatedHPA", validateCronFederatedHPA);
