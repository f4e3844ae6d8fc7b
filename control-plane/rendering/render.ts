// Rendering turns a template into the Work one cluster receives (DESIGN §2). It is a pure function
// of its inputs, so every control-plane replica computes the same manifests and the same hash.
import { contentHash } from "../../shared/content-hash.ts";
import type { KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import { reviseForMember } from "../../shared/interpreter/native/adapter.ts";
import type { KubeObject } from "../../shared/api/types.ts";
import { cleanTemplate } from "./clean-template.ts";

/** What renderWork needs beyond the template. */
export interface RenderOptions {
  /**
   * This cluster's share of the binding's replicas, set as the kind's interpreter revises it (a
   * Job's parallelism; spec.replicas of a kind without one, only when the template has it).
   */
  replicas?: number;
  /** A Divided Job's share of its completions (jobCompletionsFor). */
  completions?: number;
  /** The kind's interpreter (a customization's ReviseReplica over the native one); default the native one. */
  interpreter?: KindInterpreter;
}

/** One cluster's rendered Work: its manifests and their content hash. */
export interface RenderedWork {
  manifests: KubeObject[];
  hash: string;
}

/**
 * The cleaned template with this cluster's replicas, and its hash; RangeError on a bad replica
 * count, InterpreterError when a customization's ReviseReplica fails.
 */
export function renderWork(template: KubeObject, opts: RenderOptions): RenderedWork {
  let manifest = cleanTemplate(template);
  if (opts.replicas !== undefined) {
    if (!Number.isSafeInteger(opts.replicas) || opts.replicas < 0) {
      throw new RangeError(`replicas must be a non-negative integer, got ${opts.replicas}`);
    }
    // A kind without an interpreter is scaled only when it already carries spec.replicas: adding
    // the field to a ConfigMap or a CRD without it would be refused or pruned by the member.
    manifest = opts.interpreter === undefined ? reviseForMember(manifest, opts.replicas, opts.completions) : reviseForMember(manifest, opts.replicas, opts.completions, opts.interpreter);
  }
  const manifests = [manifest];
  return { manifests, hash: contentHash(manifests) };
}
