// Rendering turns a template into the Work one cluster receives (DESIGN §2). It is a pure function
// of its inputs, so every control-plane replica computes the same manifests and the same hash.
import { contentHash } from "../../shared/content-hash.ts";
import type { KubeObject } from "../../shared/api/types.ts";
import { cleanTemplate } from "./clean-template.ts";

/** What renderWork needs beyond the template. */
export interface RenderOptions {
  /** This cluster's share of the binding's replicas; set only on templates that have spec.replicas. */
  replicas?: number;
}

/** One cluster's rendered Work: its manifests and their content hash. */
export interface RenderedWork {
  manifests: KubeObject[];
  hash: string;
}

/** The cleaned template with this cluster's replicas, and its hash; RangeError on a bad replica count. */
export function renderWork(template: KubeObject, opts: RenderOptions): RenderedWork {
  const manifest = cleanTemplate(template);
  if (opts.replicas !== undefined) {
    if (!Number.isSafeInteger(opts.replicas) || opts.replicas < 0) {
      throw new RangeError(`replicas must be a non-negative integer, got ${opts.replicas}`);
    }
    const spec = manifest.spec;
    // Only a kind that already carries spec.replicas is scaled: adding the field to a ConfigMap or a
    // CRD without it would be refused or silently pruned by the member's apiserver.
    if (typeof spec === "object" && spec !== null && Object.hasOwn(spec, "replicas")) {
      (spec as Record<string, unknown>).replicas = opts.replicas;
    }
  }
  const manifests = [manifest];
  return { manifests, hash: contentHash(manifests) };
}
