// The overriders of one override rule (DESIGN §4), each a change to the rendered object; pure.
// overrides.ts picks the rules; this file runs one.

import type { CommandArgsOverrider, FieldOverrider, ImageOverrider, KubeObject, LabelAnnotationOverrider, Overriders, PlaintextOverrider } from "../../shared/api/types.ts";
import { formatImage, IMAGE_DIGEST, IMAGE_TAG, parseImage } from "./image-reference.ts";
import { identityChange, manifestIdentity } from "./manifest-identity.ts";
import { checkPath, errorText, getByPointer, isRecord, OverrideError, patch } from "./json-patch.ts";
import { applyFieldOverrider } from "./field-overrider.ts";

// ---- one rule ----------------------------------------------------------------------------------

// Karmada's order within a rule (its Overriders doc comment and applyPolicyOverriders).
const OVERRIDER_ORDER = [
  "imageOverrider",
  "commandOverrider",
  "argsOverrider",
  "labelsOverrider",
  "annotationsOverrider",
  "fieldOverrider",
  "plaintext",
] as const satisfies readonly (keyof Overriders)[];

type OverriderField = (typeof OVERRIDER_ORDER)[number];

/** Undefined on success, else the message naming the overrider that failed (or changed the object's identity). */
export function applyRule(object: KubeObject, overriders: Overriders, where: string): string | undefined {
  if (typeof overriders !== "object" || overriders === null) return `${where}: overriders is not an object`;
  const identity = manifestIdentity(object);
  for (const field of OVERRIDER_ORDER) {
    const list: unknown = overriders[field];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) return `${where} ${field}: not a list`;
    for (const [j, item] of (list as unknown[]).entries()) {
      try {
        if (typeof item !== "object" || item === null) throw new OverrideError("not an object");
        runOverrider(object, field, item);
        const changed = identityChange(identity, object);
        if (changed !== undefined) throw new OverrideError(changed);
      } catch (e) {
        return `${where} ${field}[${j}]: ${errorText(e)}`;
      }
    }
  }
  return undefined;
}

// Each apply function checks the fields it reads, so the casts only name the expected shape.
function runOverrider(object: KubeObject, field: OverriderField, item: object): void {
  switch (field) {
    case "imageOverrider":
      return applyImage(object, item as ImageOverrider);
    case "commandOverrider":
      return applyCommandArgs(object, item as CommandArgsOverrider, "command");
    case "argsOverrider":
      return applyCommandArgs(object, item as CommandArgsOverrider, "args");
    case "labelsOverrider":
      return applyLabelsAnnotations(object, item as LabelAnnotationOverrider, "labels");
    case "annotationsOverrider":
      return applyLabelsAnnotations(object, item as LabelAnnotationOverrider, "annotations");
    case "fieldOverrider":
      return applyFieldOverrider(object, item as FieldOverrider);
    case "plaintext":
      return applyPlaintext(object, item as PlaintextOverrider);
  }
}

// ---- plaintext -----------------------------------------------------------------------------------

function applyPlaintext(object: KubeObject, p: PlaintextOverrider): void {
  const op = p.operator ?? "replace";
  if (op !== "add" && op !== "remove" && op !== "replace") throw new OverrideError(`unknown operator ${JSON.stringify(op)}`);
  checkPath(p.path);
  if (op !== "remove" && p.value === undefined) throw new OverrideError(`${op} at ${p.path} needs a value`);
  // The value is copied so a later overrider never writes through into the policy.
  const operation = op === "remove" ? { op, path: p.path } : { op, path: p.path, value: structuredClone(p.value) };
  patch(object, operation);
}

// ---- imageOverrider ------------------------------------------------------------------------------

// Where each workload kind keeps its pod spec, as a JSON pointer.
const POD_SPEC_PATH: Readonly<Record<string, string>> = {
  Pod: "/spec",
  Deployment: "/spec/template/spec",
  StatefulSet: "/spec/template/spec",
  DaemonSet: "/spec/template/spec",
  ReplicaSet: "/spec/template/spec",
  Job: "/spec/template/spec",
  CronJob: "/spec/jobTemplate/spec/template/spec",
};

const CONTAINER_LISTS = ["containers", "initContainers"] as const;

function applyImage(object: KubeObject, o: ImageOverrider): void {
  if (o.component !== "Registry" && o.component !== "Repository" && o.component !== "Tag") {
    throw new OverrideError(`unknown component ${JSON.stringify(o.component)}`);
  }
  if (o.operator !== "add" && o.operator !== "remove" && o.operator !== "replace") {
    throw new OverrideError(`unknown operator ${JSON.stringify(o.operator)}`);
  }
  if (o.operator !== "remove" && typeof o.value !== "string") throw new OverrideError(`${o.operator} needs a string value`);
  for (const path of imagePaths(object, o)) {
    const current = getByPointer(object, path);
    if (typeof current !== "string") throw new OverrideError(`${path} is not an image string`);
    patch(object, { op: "replace", path, value: overrideImage(current, o) });
  }
}

/** The image fields an overrider touches: its predicate's path, else every container's image. */
function imagePaths(object: KubeObject, o: ImageOverrider): string[] {
  if (o.predicate !== undefined && o.predicate !== null) {
    checkPath(o.predicate.path);
    if (getByPointer(object, o.predicate.path) === undefined) throw new OverrideError(`path ${o.predicate.path} does not exist`);
    return [o.predicate.path];
  }
  const podSpecPath = POD_SPEC_PATH[object.kind];
  if (podSpecPath === undefined) return [];
  const paths: string[] = [];
  for (const list of CONTAINER_LISTS) {
    const containers = getByPointer(object, `${podSpecPath}/${list}`);
    if (!Array.isArray(containers)) continue;
    for (let i = 0; i < containers.length; i++) paths.push(`${podSpecPath}/${list}/${i}/image`);
  }
  return paths;
}

function overrideImage(image: string, o: ImageOverrider): string {
  const ref = parseImage(image);
  if (ref === undefined) throw new OverrideError(`image ${JSON.stringify(image)} is not a valid image reference`);
  const value = o.value ?? "";
  if (o.component === "Registry") {
    ref.registry = o.operator === "add" ? ref.registry + value : o.operator === "replace" ? value : "";
  } else if (o.component === "Repository") {
    ref.repository = o.operator === "add" ? ref.repository + value : o.operator === "replace" ? value : "";
  } else if (o.operator === "remove") {
    // Tag and digest count as one component: remove drops the tag, or the digest when there is no tag.
    if (ref.tag !== "") ref.tag = "";
    else ref.digest = "";
  } else {
    const next = o.operator === "add" ? (ref.tag || ref.digest) + value : value;
    if (IMAGE_TAG.test(next)) {
      ref.tag = next;
      ref.digest = "";
    } else if (IMAGE_DIGEST.test(next)) {
      ref.digest = next;
      ref.tag = "";
    } else {
      throw new OverrideError(`${JSON.stringify(next)} is neither an image tag nor a digest`);
    }
  }
  const result = formatImage(ref);
  if (parseImage(result) === undefined) {
    throw new OverrideError(`image ${JSON.stringify(image)} would become ${JSON.stringify(result)}, which is not a valid image reference`);
  }
  return result;
}

// ---- commandOverrider / argsOverrider --------------------------------------------------------------

function applyCommandArgs(object: KubeObject, o: CommandArgsOverrider, field: "command" | "args"): void {
  if (o.operator !== "add" && o.operator !== "remove") {
    throw new OverrideError(`operator ${JSON.stringify(o.operator)} is not supported here (add or remove)`);
  }
  if (typeof o.containerName !== "string" || o.containerName === "") throw new OverrideError("containerName is required");
  const value: unknown = o.value ?? [];
  if (!isStringList(value)) throw new OverrideError("value must be a list of strings");
  const podSpecPath = POD_SPEC_PATH[object.kind];
  if (podSpecPath === undefined) return;
  for (const list of CONTAINER_LISTS) {
    const containers = getByPointer(object, `${podSpecPath}/${list}`);
    if (!Array.isArray(containers)) continue;
    for (const container of containers) {
      if (!isRecord(container) || container.name !== o.containerName) continue;
      const current: unknown = container[field] ?? [];
      if (!isStringList(current)) throw new OverrideError(`container ${o.containerName} has a ${field} that is not a list of strings`);
      const next = o.operator === "add" ? [...current, ...value] : current.filter((item) => !value.includes(item));
      // An absent field stays absent when there is nothing to put in it.
      if (container[field] === undefined && next.length === 0) continue;
      container[field] = next;
    }
  }
}

// ---- labelsOverrider / annotationsOverrider ------------------------------------------------------

function applyLabelsAnnotations(object: KubeObject, o: LabelAnnotationOverrider, field: "labels" | "annotations"): void {
  if (o.operator !== "add" && o.operator !== "remove" && o.operator !== "replace") {
    throw new OverrideError(`unknown operator ${JSON.stringify(o.operator)}`);
  }
  const value: unknown = o.value ?? {};
  if (!isRecord(value)) throw new OverrideError("value must be a map of strings");
  const entries = Object.entries(value);
  for (const [key, v] of entries) {
    if (typeof v !== "string") throw new OverrideError(`value for ${field} key ${JSON.stringify(key)} must be a string`);
  }
  if (entries.length === 0) return;
  if (!isRecord(object.metadata)) throw new OverrideError("metadata is not an object");
  const metadata = object.metadata as Record<string, unknown>;
  let map = metadata[field];
  if (map === undefined || map === null) {
    if (o.operator !== "add") return;
    map = {};
    metadata[field] = map;
  }
  if (!isRecord(map)) throw new OverrideError(`metadata.${field} is not an object`);
  for (const [key, v] of entries) {
    if (o.operator === "add") map[key] = v;
    else if (!Object.hasOwn(map, key)) continue;
    else if (o.operator === "replace") map[key] = v;
    else delete map[key];
  }
}

// ---- helpers ---------------------------------------------------------------------------------------

function isStringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((item) => typeof item === "string");
}
